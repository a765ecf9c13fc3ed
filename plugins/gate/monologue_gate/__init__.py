"""monologue-gate: speak when it matters, say why when silent, wake up when idle.

The plugin answers ``should_speak`` first (``tryfirst``), through one decision path: the
session's :class:`ControllerRunner`. It speaks (reason ``gate: <trigger>``) on a speaking
hint (``user_waiting``, ``task_completed``, ``agent_failed``), an ``error``, an
``agent_result``, a ``user_message`` (interruptions included), a sub-agent's return (the
result of a ``Task``/``Agent`` tool) and the first failing tool result of each burst. In
``assist`` mode (the default) it otherwise has no opinion, so the buffer policy decides; in
``strict`` mode it speaks only then, and logs held narrations as ``narration_suppressed``
events with their reason; in ``llm`` mode it also asks a model-backed controller through the
``control`` hook. An idle watchdog asks for a narration with reason ``idle`` when a session
has had no narrative for ``idle_interval_s`` seconds.

Only stdlib modules are imported here: ``ControllerRunner`` and the summaries (pydantic,
Jinja2) load on first use, so ``monologue --help`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from monologue import hookimpl, lazy_exports

from .policy import SPEAK_EVENTS, SPEAK_HINTS, SUBAGENT_TOOLS, decide
from .watchdog import (
    Clock,
    MonotonicClock,
    Watchdog,
    idle_watchdog_due,
    shared_watchdog,
    use_watchdog,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from pydantic import BaseModel

    from monologue import Session
    from monologue.events import Event
    from monologue.plugins import MonologuePluginManager

    from .controller import Action, ControllerRunner, Decision
    from .gate import GateState
    from .llm import ControlRequest
    from .settings import GateSettings
    from .summaries import StoredSummary, load_summary, persist_summary, rolling_summary

__all__ = [
    "SPEAK_EVENTS",
    "SPEAK_HINTS",
    "SUBAGENT_TOOLS",
    "Action",
    "Clock",
    "ControlRequest",
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
    "narrator_context",
    "persist_summary",
    "rolling_summary",
    "shared_watchdog",
    "use_watchdog",
]

_LAZY = {
    "Action": "controller",
    "ControlRequest": "llm",
    "ControllerRunner": "controller",
    "Decision": "controller",
    "GateSettings": "settings",
    "GateState": "gate",
    "StoredSummary": "summaries",
    "load_summary": "summaries",
    "persist_summary": "summaries",
    "rolling_summary": "summaries",
}


def _gate(session: Session) -> GateState | None:
    # Sessions started before the plugin was registered, or with bad settings, are not gated.
    state = session.state.get("gate")
    return state or None


@hookimpl
def register_hookspecs(pm: MonologuePluginManager) -> None:
    """Add the hooks this plugin owns (``control``, ``narrator_context``)."""
    from . import hookspecs

    pm.add_hookspecs(hookspecs)


@hookimpl
def narrator_context(session: Session) -> str | None:
    """The narrator's context for ``session``: the newest events one per line, then the
    rolling summary of older ones, built now (at most once per narration, on the asking
    narrator's thread); ``None`` when the session is not gated or the gate has not spoken
    yet."""
    state = _gate(session)
    return state.context() if state is not None else None


@hookimpl
def register_event_types(register: Callable[..., None]) -> None:
    from .event_types import SummaryRefreshData

    # A summary is bookkeeping for the controller's prompt, not something to narrate.
    register("summary_refresh", SummaryRefreshData, narrated=False)


@hookimpl
def register_settings() -> type[BaseModel]:
    from .settings import GateSettings

    return GateSettings


@hookimpl
def on_session_start(session: Session) -> None:
    from .gate import GateState
    from .settings import GateSettings

    settings = session.config.settings(GateSettings)
    session.state["gate"] = GateState(session, settings, shared_watchdog())


@hookimpl(tryfirst=True)
def should_speak(session: Session, event: Event) -> bool | str | None:
    state = session.state.get("gate")  # _gate() inline: this runs once per event
    return state.should_speak(session, event) if state is not None else None


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
