"""monologue-gate: speak when it matters, say why when silent, wake up when idle.

The plugin answers ``should_speak`` first (``tryfirst``). In ``assist`` mode (the default)
it forces speech on a speaking hint (``user_waiting``, ``task_completed``,
``agent_failed``), an ``error`` or an ``agent_result``, and otherwise has no opinion, so the
buffer policy decides. In ``strict`` mode it speaks only then, and logs held narrations as
``narration_suppressed`` events with their reason. An idle watchdog asks for a narration
with reason ``idle`` when a session has had no narrative for ``idle_interval_s`` seconds.

Only stdlib modules are imported here: ``ControllerRunner`` and the summaries (pydantic,
Jinja2) load on first use, so ``monologue --help`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from monologue import hookimpl
from monologue.lazy import lazy_exports

from .gate import GateState
from .policy import SPEAK_EVENTS, SPEAK_HINTS, decide
from .settings import GateSettings
from .watchdog import (
    Clock,
    MonotonicClock,
    Watchdog,
    idle_watchdog_due,
    shared_watchdog,
    use_watchdog,
)

if TYPE_CHECKING:
    from monologue.events import Event
    from monologue.sessions import Session

    from .controller import Action, ControllerRunner, Decision
    from .summaries import StoredSummary, load_summary, persist_summary, rolling_summary

__all__ = [
    "SPEAK_EVENTS",
    "SPEAK_HINTS",
    "Action",
    "Clock",
    "ControllerRunner",
    "Decision",
    "GateSettings",
    "GateState",
    "MonotonicClock",
    "StoredSummary",
    "Watchdog",
    "decide",
    "idle_watchdog_due",
    "load_summary",
    "persist_summary",
    "rolling_summary",
    "shared_watchdog",
    "use_watchdog",
]

_LAZY = {
    "Action": "controller",
    "ControllerRunner": "controller",
    "Decision": "controller",
    "StoredSummary": "summaries",
    "load_summary": "summaries",
    "persist_summary": "summaries",
    "rolling_summary": "summaries",
}


def _gate(session: Session) -> GateState | None:
    state = session.state.get("gate")
    return state if isinstance(state, GateState) else None


@hookimpl
def on_session_start(session: Session) -> None:
    # A bad setting is reported by the core against this plugin; the session goes on ungated
    # (False marks it, so the error is not raised again on every event).
    session.state["gate"] = False
    settings = GateSettings.from_config(session.config)
    session.state["gate"] = GateState(session, settings, shared_watchdog())


@hookimpl(tryfirst=True)
def should_speak(session: Session, event: Event) -> bool | str | None:
    state = session.state.get("gate")
    # Sessions started before the plugin was registered, or with bad settings, are not gated.
    return state.should_speak(session, event) if state else None


@hookimpl
def on_narrative(session: Session) -> None:
    state = _gate(session)
    if state is not None:
        state.narrated()


@hookimpl
def on_complete(session: Session) -> None:
    state = _gate(session)
    if state is not None:
        state.close()


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
