"""monologue-recorder: every event of every session, durably, in ``<record_dir>/<id>.jsonl``.

The hooks here stay thin and import nothing heavy, because this module is imported whenever
``monologue`` starts: the work is done in :mod:`.recording` (what to write, through the
core's :mod:`monologue.recording` format) and :mod:`.writer` (how it reaches the disk).
Reading recordings back (``monologue replay``, ``watch`` and ``log``) is the core's job.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from monologue import hookimpl

from .recording import finish, record, settings, start

if TYPE_CHECKING:
    from monologue import MonologueConfig, Session
    from monologue.events import Event

__all__ = ["describe_settings", "on_complete", "on_event", "on_session_start"]


@hookimpl
def describe_settings(config: MonologueConfig) -> dict[str, Any]:
    return settings(config)


@hookimpl
def on_session_start(session: Session) -> None:
    start(session)


@hookimpl
def on_event(session: Session, event: Event) -> None:
    record(session, event)


@hookimpl
def on_complete(session: Session) -> None:
    finish(session)
