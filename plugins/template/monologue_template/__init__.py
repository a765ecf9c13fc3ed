"""monologue-template: the offline narrator, monologue's zero-configuration default.

Deterministic first-person sentences built from the events themselves, naming the concrete
subject ("I'm reading src/client.py and tests/test_client.py."), summarising batches ("I ran
the test suite; 2 of 41 tests failed."), saying plainly what failed, and using the history
not to repeat itself. It needs no key and no network, so it is always available.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from monologue import hookimpl

if TYPE_CHECKING:
    from monologue import Session
    from monologue.events import Event

    from .scene import Scene

__all__ = ["narrate", "scene_of"]

_STATE_KEY = "template"


def scene_of(session: Session) -> Scene:
    """The narrator's view of ``session`` right now (config, history, open tool calls)."""
    import time
    from datetime import UTC, datetime

    from .actions import Memory
    from .scene import Scene

    memory = session.state.get(_STATE_KEY)
    if not isinstance(memory, Memory):
        memory = session.state[_STATE_KEY] = Memory()
    quiet = None
    if session.last_event_at is not None:
        quiet = time.monotonic() - session.last_event_at
    with session.lock:
        open_calls = sorted(session.open_tool_calls.values(), key=lambda event: event.ts)
    stats = session.stats  # a snapshot built on each access: read it once
    return Scene(
        agent=session.agent,
        preset=session.config.preset,
        first=session.is_first,
        history=list(session.history),
        open_calls=open_calls,
        now=datetime.now(UTC),
        quiet_s=quiet,
        tool_calls=stats.tool_calls,
        tool_errors=stats.tool_errors,
        cwd=session.meta.get("cwd"),
        memory=memory,
    )


@hookimpl
def narrator_priority() -> int:
    # Always usable, so narrator = "auto" falls back on it when no better narrator can run.
    return 0


@hookimpl
def narrate(session: Session, events: list[Event], history: list[str], reason: str) -> str:
    from monologue.events import FOLDED_TYPE

    from .compose import narrate as compose
    from .folded import with_folded
    from .tools import note_process_cwd

    note_process_cwd()
    scene = scene_of(session)
    scene.history = list(history)
    scene.after_digest = bool(events) and events[0].type == FOLDED_TYPE
    return with_folded(
        events,
        lambda batch: compose(scene, batch, reason),
        terse=scene.preset == "terse",
        cwd=scene.cwd,
    )
