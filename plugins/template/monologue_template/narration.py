"""The narrator hook's work: the session seen as a scene, and its batch composed.

Imported once, at the first narrative (see ``monologue_template._narration``), so that
loading the plugin stays cheap; its own imports are at the top, not in the functions: an
import statement costs microseconds on every call (a relative one about five), and a
narrator runs on every narrative.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from monologue.events import FOLDED_TYPE

from .actions import Memory
from .compose import narrate as compose
from .folded import with_folded
from .scene import Scene
from .tools import note_process_cwd

if TYPE_CHECKING:
    from monologue import Session
    from monologue.events import Event

__all__ = ["narrate", "scene_of"]

_STATE_KEY = "template"  # where the narrator keeps its Memory in session.state


def scene_of(session: Session) -> Scene:
    """The narrator's view of ``session`` right now (config, history, open tool calls)."""
    return _scene(session, list(session.history), clock=True)


def _scene(session: Session, history: list[str], clock: bool) -> Scene:
    """``clock``: with the time now and since the agent's last event, which reading the
    clock costs a narration that does not say them."""
    memory = session.state.get(_STATE_KEY)
    if not isinstance(memory, Memory):
        memory = session.state[_STATE_KEY] = Memory()
    quiet = None
    if clock and session.last_event_at is not None:
        quiet = time.monotonic() - session.last_event_at
    with session.lock:
        open_calls = sorted(session.open_tool_calls.values(), key=lambda event: event.ts)
    stats = session.stats  # a snapshot built on each access: read it once
    return Scene(
        agent=session.agent,
        preset=session.config.preset,
        first=session.is_first,
        history=history,
        open_calls=open_calls,
        now=datetime.now(UTC) if clock else None,
        quiet_s=quiet,
        tool_calls=stats.tool_calls,
        tool_errors=stats.tool_errors,
        cwd=session.meta.get("cwd"),
        memory=memory,
    )


def narrate(session: Session, events: list[Event], history: list[str], reason: str) -> str:
    """The narration of ``events`` (the ``narrate`` hook's answer)."""
    note_process_cwd()
    # Only an idle narrative tells how long things took ("..., 3 min so far").
    scene = _scene(session, list(history), clock=reason == "idle")
    scene.after_digest = bool(events) and events[0].type == FOLDED_TYPE
    scene.redacted = True
    if not scene.after_digest:
        return compose(scene, events, reason)  # (with_folded would only pass it on)
    return with_folded(
        events,
        lambda batch: compose(scene, batch, reason),
        terse=scene.preset == "terse",
        cwd=scene.cwd,
    )
