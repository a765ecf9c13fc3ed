"""When the gate speaks: the hints and event types that matter, and why it holds otherwise.

Pure functions over names, no pydantic: the plugin calls them on every event, and
:class:`~monologue_gate.controller.ControllerRunner` on whatever a caller passes in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

WAITING_HINT = "user_waiting"
SPEAK_HINTS = frozenset({WAITING_HINT, "task_completed", "agent_failed"})
"""Hints that make the gate speak now."""

SPEAK_EVENTS = frozenset({"error", "agent_result"})
"""Event types that make the gate speak now."""

DEFAULT_WINDOW = 5
"""How many recent events the gate looks at."""


def find_trigger(hints: Iterable[str], recent_types: Iterable[str]) -> str | None:
    """What calls for speech (``"hint user_waiting"``, ``"error event"``), or ``None``."""
    for hint in hints:
        if hint in SPEAK_HINTS:
            return f"hint {hint}"
    for kind in recent_types:
        if kind in SPEAK_EVENTS:
            return f"{kind} event"
    return None


def hold_reason(hints: Sequence[str], recent: int) -> str:
    """Why nothing calls for speech, naming what was looked at."""
    if hints:
        heard = f"hints {', '.join(dict.fromkeys(hints))} do not call for speech"
    else:
        heard = "no hint"
    noun = "event" if recent == 1 else "events"
    return f"{heard}, no error or result in the last {recent} {noun}"


def decide(hints: Sequence[str], recent_types: Sequence[str]) -> dict[str, Any]:
    """The gate's decision as a plain dict: ``speak_now``, ``actions`` and ``notes``."""
    trigger = find_trigger(hints, recent_types)
    if trigger is None:
        return {"speak_now": False, "actions": [], "notes": hold_reason(hints, len(recent_types))}
    return {
        "speak_now": True,
        "actions": [{"type": "narrate", "reason": trigger}],
        "notes": f"speak: {trigger}",
    }
