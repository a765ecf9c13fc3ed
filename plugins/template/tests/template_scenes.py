"""Events and scenes for the template narrator's tests, built by hand like an agent's."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

from monologue_template.compose import Scene, narrate

from monologue.events import Event

AGENT = "coder"
T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
_ids = itertools.count(1)


def call(tool: str, agent: str = AGENT, at: float = 0, **tool_input: Any) -> Event:
    return Event(
        type="tool_call",
        agent=agent,
        ts=T0 + timedelta(seconds=at),
        data={"tool_name": tool, "tool_use_id": f"toolu_{next(_ids)}", "input": tool_input},
    )


def result(of: Event, output: Any = "ok", is_error: bool = False) -> Event:
    return Event(
        type="tool_result",
        agent=of.agent,
        data={
            "tool_use_id": of.data["tool_use_id"],
            "tool_name": of.data["tool_name"],
            "output": output,
            "is_error": is_error,
        },
    )


def done(tool: str, output: Any = "ok", is_error: bool = False, **tool_input: Any) -> list[Event]:
    """A tool call and its result."""
    first = call(tool, **tool_input)
    return [first, result(first, output, is_error)]


def text(words: str, agent: str = AGENT) -> Event:
    return Event(type="text", agent=agent, data={"text": words})


def event(kind: str, **data: Any) -> Event:
    return Event(type=kind, agent=AGENT, data=data)


def tell(
    *events: Event | list[Event], reason: str = "buffer", scene: Scene | None = None, **facts: Any
) -> str:
    """What the template narrator says about ``events`` (lists are flattened)."""
    flat: list[Event] = []
    for item in events:
        flat.extend(item if isinstance(item, list) else [item])
    return narrate(scene or Scene(agent=AGENT, **facts), flat, reason)
