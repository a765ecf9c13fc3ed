"""monologue-recorder: every event of every session, durably, in ``<record_dir>/<id>.jsonl``.

The hooks here stay thin and import nothing heavy, because this module is imported whenever
``monologue`` starts: the work is done in :mod:`.recording` (what to write), :mod:`.writer`
(how it reaches the disk), :mod:`.reading` (reading it back), :mod:`.replay` and
:mod:`.commands` (``monologue replay``, ``watch`` and ``log``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from monologue import hookimpl

from .recording import finish, record, start

if TYPE_CHECKING:
    from collections.abc import Iterable

    import click

    from monologue.events import Event
    from monologue.sessions import Session

    from .reading import RecordingDecoder

__all__ = [
    "line_parser",
    "load_session",
    "on_complete",
    "on_event",
    "on_session_start",
    "register_commands",
]


@hookimpl
def on_session_start(session: Session) -> None:
    start(session)


@hookimpl
def on_event(session: Session, event: Event) -> None:
    record(session, event)


@hookimpl
def on_complete(session: Session) -> None:
    finish(session)


@hookimpl
def load_session(path: Path) -> Iterable[Event] | None:
    """monologue recordings (JSONL whose first line is a {"monologue": N, ...} header)"""
    from .reading import looks_like_recording, read_recording

    if not looks_like_recording(path):
        return None
    return read_recording(path)


@hookimpl
def line_parser(path: Path) -> RecordingDecoder | None:
    """A line parser following a recording as it grows (``monologue watch``), or ``None``."""
    from .reading import parser_for

    return parser_for(path)


@hookimpl
def register_commands(cli: click.Group) -> None:
    from .commands import log_command, replay_command, watch_command

    cli.add_command(replay_command)
    cli.add_command(watch_command)
    cli.add_command(log_command)
