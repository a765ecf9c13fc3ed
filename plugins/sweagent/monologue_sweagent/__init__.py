"""monologue-sweagent: narrate SWE-agent and mini-swe-agent runs.

- ``load_session``: SWE-agent ``.traj`` files (1.x function calling and 0.x text actions) and
  mini-swe-agent trajectories (a chat message list, bare or saved with its ``info``),
  recognised by their content.
- :func:`read_session`: the same, called directly.

This module is imported whenever monologue loads its plugins, so the readers are imported
when first used.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from monologue import hookimpl

if TYPE_CHECKING:
    from monologue.events import Event

    from .reader import SweFile

__all__ = ["load_session", "read_session"]


@hookimpl
def load_session(path: Path) -> Iterable[Event] | None:
    """SWE-agent .traj (1.x and 0.x) and mini-swe-agent trajectories."""
    from .reader import SweFile, detect

    return SweFile(path, detect(Path(path)))


def read_session(path: str | Path) -> SweFile:
    """The events of a SWE-agent or mini-swe-agent file (see :mod:`monologue_sweagent.reader`)."""
    from .reader import read_session as read

    return read(path)
