"""monologue-recorder: every event of every session, durably, in ``<record_dir>/<id>.jsonl``.

The hooks here stay thin and import nothing heavy, because this module is imported whenever
``monologue`` starts: the work is done in :mod:`.recording` (what to write, through the
core's :mod:`monologue.recording` format) and :mod:`.writer` (how it reaches the disk).
Reading recordings back (``monologue replay``, ``watch`` and ``log``) is the core's job.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from monologue import hookimpl

from .recording import finish, record, start

if TYPE_CHECKING:
    from pydantic import BaseModel

    from monologue import Session
    from monologue.events import Event

__all__ = ["on_complete", "on_event", "on_session_start", "register_settings"]


@hookimpl
def register_settings() -> type[BaseModel]:
    from .settings import RecorderSettings

    return RecorderSettings


@hookimpl
def on_session_start(session: Session) -> None:
    start(session)


@hookimpl
def on_event(session: Session, event: Event) -> None:
    record(session, event)


@hookimpl
def on_complete(session: Session) -> None:
    finish(session)
