"""A SWE-agent ``.traj`` as events.

The ``trajectory`` steps are read in order: each step's ``thought`` becomes a ``text`` event,
its ``action`` a ``tool_call`` and its ``observation`` the matching ``tool_result``. In 1.x
(function calling) the ids are the model's own ``tool_calls[].id``, taken from the
``history`` messages that carry them, in order; in 0.x there are no ids, action and
observation pair by position and the id is ``step-<n>``. ``submit`` ends the run: it becomes
the ``completion``, with ``info.exit_status`` and the submitted patch.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from monologue.events import Event

from .commands import from_action, from_function, is_submit
from .shapes import HistoryMessage, Step, ToolCall, Trajectory

__all__ = ["trajectory_events"]

_NO_FILE = frozenset({"", "n/a", "None"})


def trajectory_events(traj: Trajectory) -> Iterator[Event]:
    task = _task(traj.history)
    if task:
        yield Event(type="user_message", data={"text": task})
    calls = _CallQueue(traj.history)
    open_file: str | None = None
    submitted = False
    for index, step in enumerate(traj.trajectory):
        thought = (step.thought or "").strip()
        if thought:
            yield Event(type="text", data={"text": thought})
        open_file = _open_file(step.state) or open_file
        if is_submit(step.action):
            submitted = True
            break
        yield from _step_events(step, index, calls.take(step.action), open_file)
    yield _completion(traj.info, submitted)


def _step_events(
    step: Step, index: int, call: ToolCall | None, open_file: str | None
) -> Iterator[Event]:
    if call is not None:
        args = _arguments(call.function.arguments)
        tool, tool_input = from_function(call.function.name, args, open_file)
        call_id, framework = call.id, {"tool": call.function.name, "input": args}
    else:
        tool, tool_input = from_action(step.action, open_file)
        call_id = f"step-{index + 1}"
        framework = {"tool": step.action.split(maxsplit=1)[0], "input": {"action": step.action}}
    yield Event(
        type="tool_call",
        data={
            "tool_name": tool,
            "tool_use_id": call_id,
            "input": tool_input,
            "framework_tool": framework["tool"],
            "framework_input": framework["input"],
        },
    )
    output = step.observation or ""
    yield Event(
        type="tool_result",
        data={
            "tool_use_id": call_id,
            "tool_name": tool,
            "output": output,
            "is_error": _looks_failed(output),
        },
    )


class _CallQueue:
    """The 1.x function calls of ``history``, in order, handed to the steps they belong to."""

    def __init__(self, history: list[HistoryMessage]) -> None:
        self._calls = [
            ((message.model_extra or {}).get("action"), message.tool_calls[0])
            for message in history
            if message.tool_calls and not message.is_demo
        ]
        self._next = 0

    def take(self, action: str) -> ToolCall | None:
        """The call whose message ran ``action`` (the next one, when messages do not say)."""
        if self._next >= len(self._calls):
            return None
        said, call = self._calls[self._next]
        if isinstance(said, str) and said.strip() != action.strip():
            return None
        self._next += 1
        return call


def _completion(info: dict[str, Any], submitted: bool) -> Event:
    status = info.get("exit_status")
    data: dict[str, Any] = {
        "result": status if isinstance(status, str) else ("submitted" if submitted else None),
        "is_error": isinstance(status, str) and not status.startswith("submitted"),
    }
    if isinstance(info.get("submission"), str):
        data["submission"] = info["submission"]
    return Event(type="completion", data=data)


def _task(history: list[HistoryMessage]) -> str | None:
    for message in history:
        if message.role == "user" and not message.is_demo and isinstance(message.content, str):
            return message.content
    return None


def _open_file(state: dict[str, Any] | str | None) -> str | None:
    if isinstance(state, str):
        try:
            state = json.loads(state)
        except ValueError:
            return None
    if not isinstance(state, dict):
        return None
    found = state.get("open_file")
    return found if isinstance(found, str) and found not in _NO_FILE else None


def _arguments(raw: str | dict[str, Any]) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw)
    except ValueError:
        return {"arguments": raw}
    return value if isinstance(value, dict) else {"arguments": value}


def _looks_failed(output: str) -> bool:
    """SWE-agent reports a failed command in the observation's text only."""
    head = output.lstrip()[:200]
    return head.startswith(("Traceback", "Error:", "Your proposed edit has introduced"))
