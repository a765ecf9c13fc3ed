"""When the gate speaks: the hints and events that matter, and why it holds otherwise.

Pure functions over names and payloads, no pydantic: the plugin calls them on every event
through :class:`~monologue_gate.controller.ControllerRunner`, and so may other callers.

A trigger is a short phrase saying what calls for speech (``"tool failed: Bash"``, ``"user
interrupted"``, ``"hint user_waiting"``); the gate's narration reason is ``gate: `` and the
trigger, so a narrative shows why the gate spoke.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

WAITING_HINT = "user_waiting"
SPEAK_HINTS = frozenset({WAITING_HINT, "task_completed", "agent_failed"})
"""Hints that make the gate speak now."""

SPEAK_EVENTS = frozenset({"error", "agent_result", "user_message"})
"""Event types that always make the gate speak now (besides some tool results)."""

SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
"""Claude Code's tools that run a sub-agent: their result is the sub-agent's return."""

INTERRUPTION = "[Request interrupted by user"
"""How Claude Code records a user's interruption, as the text of a user message."""

REASON_PREFIX = "gate: "
"""Narration reasons the gate names start with this."""

DEFAULT_WINDOW = 5
"""How many recent events the gate looks at."""

WHAT_SPEAKS = "no failure, error, result, sub-agent return or user message"


TRIGGER_TYPES = frozenset(
    {"tool_result", *SPEAK_EVENTS, "TOOL_RESULT", *(kind.upper() for kind in SPEAK_EVENTS)}
)
"""The only event types :func:`event_trigger` can find something in, as monologue names them
and as the controller spec does (upper case: ``ERROR``, ``AGENT_RESULT``...)."""


def canonical_type(kind: str) -> str:
    """An event type as monologue names it: the controller spec's ``AGENT_RESULT`` is
    ``agent_result``."""
    return kind.lower() if kind.isupper() else kind


def event_trigger(kind: str, data: Mapping[str, Any] | None = None) -> str | None:
    """What in one event calls for speech, or ``None`` (``data`` may be unknown); ``kind``
    in either spelling (see :func:`canonical_type`)."""
    data = data or {}
    kind = canonical_type(kind)
    if kind == "tool_result":
        tool = data.get("tool_name")
        if data.get("is_error"):
            return f"tool failed: {tool}" if tool else "tool failed"
        if tool in SUBAGENT_TOOLS:
            return "sub-agent returned"
        return None
    if kind == "user_message":
        text = str(data.get("text", "")).lstrip()
        return "user interrupted" if text.startswith(INTERRUPTION) else "user message"
    if kind == "agent_result":
        return "agent result"
    if kind == "error":
        return "error"
    return None


def find_trigger(hints: Iterable[str], triggers: Iterable[str | None]) -> str | None:
    """The first speaking hint (``"hint user_waiting"``), else the first event trigger."""
    for hint in hints:
        if hint in SPEAK_HINTS:
            return f"hint {hint}"
    return next((trigger for trigger in triggers if trigger), None)


def hold_reason(hints: Sequence[str], recent: int) -> str:
    """Why nothing calls for speech, naming what was looked at."""
    if hints:
        heard = f"hints {', '.join(dict.fromkeys(hints))} do not call for speech"
    else:
        heard = "no hint"
    noun = "event" if recent == 1 else "events"
    return f"{heard}, {WHAT_SPEAKS} in the last {recent} {noun}"


def _trigger_of(item: Mapping[str, Any] | str) -> str | None:
    if isinstance(item, str):
        return event_trigger(item)
    return event_trigger(str(item.get("type", "")), item.get("data"))


def decide(hints: Sequence[str], recent: Sequence[Mapping[str, Any] | str]) -> dict[str, Any]:
    """The gate's decision as a plain dict: ``speak_now``, ``actions`` and ``notes``.

    ``recent`` holds events as mappings (``type`` and ``data``) or bare type names; a bare
    ``tool_result`` cannot tell a failure, so it never speaks."""
    trigger = find_trigger(hints, (_trigger_of(item) for item in recent))
    return verdict(trigger, hints, len(recent))


def verdict(trigger: str | None, hints: Sequence[str], recent: int) -> dict[str, Any]:
    """The decision dict for a trigger found (or not) among ``recent`` events."""
    if trigger is None:
        return {"speak_now": False, "actions": [], "notes": hold_reason(hints, recent)}
    return {
        "speak_now": True,
        "actions": [{"type": "narrate", "reason": trigger}],
        "notes": f"speak: {trigger}",
    }
