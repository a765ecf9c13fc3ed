"""A SWE-agent ``.traj`` as events.

The ``trajectory`` steps are read in order: each step's ``thought`` becomes a ``text`` event,
its ``action`` a ``tool_call`` and its ``observation`` the matching ``tool_result``. In 1.x
(function calling) the ids are the model's own ``tool_calls[].id``, taken from the
``history`` messages that carry them, in order; in 0.x there are no ids, action and
observation pair by position and the id is ``step-<n>``. ``submit`` ends the run: it becomes
the ``completion``, with ``info.exit_status`` and the submitted patch (see
:mod:`monologue_sweagent.outcome`).

A demonstration (the worked example SWE-agent shows its model) holds only ``history``: its
steps are read from the messages, each assistant message's ``action`` and ``thought`` and the
tool or user message after it as the observation.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from monologue.events import Event

from .commands import from_action, from_function, is_submit
from .outcome import completion
from .shapes import HistoryMessage, Step, ToolCall, Trajectory

__all__ = ["trajectory_events"]

_NO_FILE = frozenset({"", "n/a", "None"})


def trajectory_events(traj: Trajectory) -> Iterator[Event]:
    if not traj.trajectory:
        # A demonstration: every message is marked as one, and the file is nothing else.
        history = [message.model_copy(update={"is_demo": False}) for message in traj.history]
        traj = traj.model_copy(update={"history": history, "trajectory": _steps(history)})
    task = _task(traj.history)
    if task:
        yield Event(type="user_message", data={"text": task, "origin": "user"})
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


def _steps(history: list[HistoryMessage]) -> list[Step]:
    """The steps of a history: each assistant action, seen through the next message."""
    steps: list[Step] = []
    waiting = False
    for message in history:
        extra = message.model_extra or {}
        action = extra.get("action")
        if message.role == "assistant" and isinstance(action, str) and action.strip():
            thought = extra.get("thought")
            if not isinstance(thought, str):
                thought = _content(message.content)
            steps.append(Step(action=action, thought=thought, observation=""))
            waiting = True
        elif message.role in ("tool", "user") and waiting:
            steps[-1].observation = _content(message.content)
            waiting = False
    return steps


def _content(content: str | list[Any] | None) -> str:
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return content or ""


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
    return completion(info.get("exit_status"), submitted, info.get("submission"))


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
