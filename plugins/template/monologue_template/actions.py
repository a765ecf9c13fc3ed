"""Buffered events regrouped as the narrator thinks of them: actions and notes.

An :class:`Action` is one tool use, its call and (once it came) its result. A result whose
call was narrated in an earlier turn is joined to it through the session's call memory, so
"I'm running the test suite." can be followed by "I ran the test suite; all 41 tests passed."
Every other event is a :class:`Note`. Text from tools and the agent is redacted here, once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from monologue.digest import as_text
from monologue.redact import redact, redact_text

from .tools import kind_of

if TYPE_CHECKING:
    from monologue.events import Event

MEMORY_LIMIT = 500
"""Calls remembered per session while waiting for their results."""


@dataclass
class Action:
    """One tool use. ``output`` is ``None`` while the tool is still running."""

    tool: str | None
    input: dict[str, Any]
    agent: str
    order: int
    output: str | None = None
    is_error: bool = False
    kind: str = field(init=False)

    def __post_init__(self) -> None:
        self.kind = kind_of(self.tool, self.input)

    @property
    def running(self) -> bool:
        return self.output is None


@dataclass
class Note:
    """Any other event: agent text, thinking, an error, the completion..."""

    type: str
    agent: str
    order: int
    text: str = ""
    is_error: bool = False
    data: dict[str, Any] = field(default_factory=dict)


CallMemory = dict[str, tuple[str | None, dict[str, Any], str]]
"""``tool_use_id`` -> ``(tool_name, redacted input, agent)`` of calls not yet answered."""


def regroup(events: list[Event], memory: CallMemory) -> tuple[list[Action], list[Note]]:
    """Split ``events`` into actions (in call order) and notes, updating ``memory``."""
    actions: dict[str, Action] = {}
    notes: list[Note] = []
    for order, event in enumerate(events):
        data = event.data
        if event.type == "tool_call":
            use_id = str(data.get("tool_use_id"))
            tool_input = redact(data.get("input") or {})
            actions[use_id] = Action(data.get("tool_name"), tool_input, event.agent, order)
            memory[use_id] = (data.get("tool_name"), tool_input, event.agent)
        elif event.type == "tool_result":
            use_id = str(data.get("tool_use_id"))
            action = actions.get(use_id)
            if action is None:
                tool, tool_input, agent = memory.get(use_id, (None, {}, event.agent))
                action = actions[use_id] = Action(
                    data.get("tool_name") or tool, tool_input, agent, order
                )
            memory.pop(use_id, None)
            action.output = redact_text(as_text(data.get("output")))
            action.is_error = bool(data.get("is_error"))
        else:
            notes.append(_note(event, order))
    while len(memory) > MEMORY_LIMIT:
        del memory[next(iter(memory))]
    return sorted(actions.values(), key=lambda action: action.order), notes


def _note(event: Event, order: int) -> Note:
    data = event.data
    raw = data.get("text", data.get("message", data.get("outcome", "")))
    return Note(
        type=event.type,
        agent=event.agent,
        order=order,
        text=redact_text(as_text(raw)),
        is_error=event.type == "error" or bool(data.get("is_error")),
        data=data,
    )
