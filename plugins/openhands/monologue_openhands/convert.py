"""OpenHands events to monologue events, one at a time (so a growing file can be followed).

- A tool-running action (``run``, ``read``, ``edit``, ``browse``...) becomes its ``thought``
  as ``text`` and a ``tool_call``; its ``tool_use_id`` is the model's own tool-call id when
  ``tool_call_metadata`` has one, else the action's event id.
- An observation whose ``cause`` names such an action becomes its ``tool_result`` (an
  ``error`` observation, or a command with a non-zero exit code, is an error result).
- ``message`` is what the user or the agent said; ``think`` is ``thinking``; ``finish`` and
  ``reject`` are the ``completion``; an ``error`` observation answering nothing is an
  ``error``; ``agent_state_changed`` becomes an ``agent_update`` saying the state in plain
  words (``awaiting_user_input``: "waiting for the user's reply"; the state's own name stays
  in ``framework_state``), the ``error`` state an ``error``. The ``null`` observation,
  ``system``, ``recall`` and the like carry nothing.
- A stream without ``finish`` ends with a ``completion`` saying how it ended from the last
  state: waiting for the user or finished is ``completed``, ``stopped`` ``interrupted``,
  ``error`` ``failed``, anything else ``cut_off`` (see :meth:`Converter.finish`).

Every event keeps the OpenHands ``id`` (``openhands_id``) and ``cause`` in its data.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

from monologue.events import Event
from monologue.origins import prompt_data

from .shapes import OpenHandsEvent
from .tools import as_tool

__all__ = ["Converter"]

_QUIET_STATES = frozenset({"loading", "init", "running", "user_confirmed"})
_STATE_WORDS = {
    "awaiting_user_input": "waiting for the user's reply",
    "awaiting_user_confirmation": "waiting for the user to confirm an action",
    "user_rejected": "the user rejected an action",
    "paused": "paused",
    "stopped": "stopped by the user",
    "finished": "finished",
    "rejected": "gave up on the task",
    "rate_limited": "waiting out the model's rate limit",
}
_ENDINGS = {
    "awaiting_user_input": "completed",
    "finished": "completed",
    "stopped": "interrupted",
    "error": "failed",
    "rejected": "failed",
}


class Converter:
    """Follows one OpenHands event stream: remembers which action each id was."""

    def __init__(self) -> None:
        self._calls: dict[int, tuple[str, str]] = {}  # action id -> (tool_use_id, tool_name)
        self._state: str | None = None
        self._completed = False
        self._last: OpenHandsEvent | None = None

    def finish(self) -> list[Event]:
        """The completion of a stream that ended without ``finish`` / ``reject``, saying how
        it ended; none when it completed, or is empty."""
        if self._completed or self._last is None:
            return []
        ending = "cut_off" if self._calls else _ENDINGS.get(self._state or "", "cut_off")
        data = {"result": None, "is_error": ending == "failed", "ending": ending}
        return [self._stamp("completion", data, self._last)]

    def convert(self, item: OpenHandsEvent) -> list[Event]:
        ids = {"openhands_id": item.id, **({"cause": item.cause} if item.cause is not None else {})}
        made = self._action(item) if item.action is not None else self._observation(item)
        self._last = item
        kinds = {kind for kind, _ in made}
        if "completion" in kinds:
            self._completed = True
        elif kinds & {"user_message", "text", "tool_call"}:
            self._completed = False  # a new turn
        return [self._stamp(kind, {**data, **ids}, item) for kind, data in made]

    def _action(self, item: OpenHandsEvent) -> list[tuple[str, dict[str, Any]]]:
        action, args = item.action or "", item.args
        thought = args.get("thought")
        said = [("text", {"text": thought})] if isinstance(thought, str) and thought.strip() else []
        tool = as_tool(action, args)
        if tool is not None:
            meta = item.tool_call_metadata
            call_id = (meta.tool_call_id if meta else None) or str(item.id)
            self._calls[item.id] = (call_id, tool[0])
            call = {
                "tool_name": tool[0],
                "tool_use_id": call_id,
                "input": tool[1],
                "framework_tool": action,
                "function_name": meta.function_name if meta else None,
                "framework_input": {k: v for k, v in args.items() if k != "thought"},
            }
            return [*said, ("tool_call", call)]
        if action == "message":
            text = str(args.get("content") or item.message)
            if item.source == "user":
                return [("user_message", prompt_data(text))]
            return [("text", {"text": text})]
        if action == "think":
            return [("thinking", {"text": thought})] if said else []
        if action in ("finish", "reject"):
            final = args.get("final_thought") or thought or item.message
            rejected = action == "reject"
            data = {
                "result": final or None,
                "is_error": rejected,
                "ending": "failed" if rejected else "completed",
            }
            return [("completion", {**data, "outputs": args.get("outputs") or {}})]
        return []

    def _observation(self, item: OpenHandsEvent) -> list[tuple[str, dict[str, Any]]]:
        kind, extras = item.observation, item.extras
        call = self._calls.pop(item.cause, None) if item.cause is not None else None
        if call is not None:
            code = (extras.get("metadata") or {}).get("exit_code", extras.get("exit_code"))
            failed = kind == "error" or (isinstance(code, int) and code > 0)
            data = {"tool_use_id": call[0], "tool_name": call[1], "output": item.content}
            return [("tool_result", {**data, "is_error": failed, "exit_code": code})]
        if kind == "error":
            return [("error", {"message": item.content or item.message, "error_type": "error"})]
        if kind == "agent_state_changed":
            state = str(extras.get("agent_state", ""))
            self._state = state or self._state
            if state == "error":
                reason = extras.get("reason") or "the agent stopped on an error"
                return [("error", {"message": str(reason), "error_type": "agent_state"})]
            if state and state not in _QUIET_STATES:
                words = _STATE_WORDS.get(state, state.replace("_", " "))
                return [("agent_update", {"message": words, "framework_state": state})]
        return []

    @staticmethod
    def _stamp(kind: str, data: dict[str, Any], item: OpenHandsEvent) -> Event:
        if item.timestamp is None:
            return Event(type=kind, data=data)
        # OpenHands writes naive times; read them as UTC, the same on every machine.
        ts = item.timestamp if item.timestamp.tzinfo else item.timestamp.replace(tzinfo=UTC)
        return Event(type=kind, data=data, ts=ts)
