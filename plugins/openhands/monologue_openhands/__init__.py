"""monologue-openhands: narrate OpenHands runs from their event stream.

- ``load_session``: an OpenHands event list (a JSON array, or one event a line), recognised by
  its content: actions, observations linked to them by ``cause``, agent state changes, finish.
- ``line_parser``: follow a JSONL event file as the agent appends to it (``monologue watch``).
- :func:`read_session`: the same reader, called directly.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from monologue import hookimpl

if TYPE_CHECKING:
    from monologue.events import Event

    from .reader import EventLineParser, OpenHandsFile

__all__ = ["line_parser", "load_session", "read_session"]


@hookimpl
def load_session(path: Path) -> Iterable[Event] | None:
    """OpenHands event streams (JSON array or JSONL)."""
    from .reader import OpenHandsFile, detect

    return OpenHandsFile(path, detect(Path(path)))


@hookimpl
def line_parser(path: Path) -> EventLineParser | None:
    """Follow a JSONL OpenHands event file as it grows."""
    from .reader import EventLineParser, detect

    return EventLineParser(path) if detect(Path(path)) == "lines" else None


def read_session(path: str | Path) -> OpenHandsFile:
    """The events of an OpenHands event file (see :mod:`monologue_openhands.reader`)."""
    from .reader import read_session as read

    return read(path)
