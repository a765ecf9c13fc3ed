"""The typed event helpers of a session (``s.tool_call(...)``, ``s.text(...)``...).

They check their arguments themselves and build complete payloads, so their events skip
pydantic (see :meth:`Event.trusted`); everything else goes through validated ``emit``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from monologue.events import Event
from monologue.events._ids import new_id

_SCALARS = (str, int, float, bool, type(None))
_STR_OR_NONE = (str, type(None))
_DICT_OR_NONE = (dict, type(None))
_RESULT_LIMIT = 2000


class EventHelpers:
    """Mixed into :class:`~monologue.Session`; the session supplies the three members below."""

    if TYPE_CHECKING:
        open_tool_calls: dict[str, Event]

        def emit(self, type: str, data: dict[str, Any] | None = None, **fields: Any) -> Event: ...

        def _emit_checked(self, type: str, data: dict[str, Any]) -> Event: ...

    def tool_call(
        self, tool_name: str, input: dict[str, Any] | None = None, tool_use_id: str | None = None
    ) -> Event:
        """The agent calls a tool; the event's ``data["tool_use_id"]`` links its result."""
        # One combined test on the hot path; _check names the bad argument when it fails.
        if not (
            isinstance(tool_name, str)
            and isinstance(input, _DICT_OR_NONE)
            and isinstance(tool_use_id, _STR_OR_NONE)
        ):
            _check("tool_call", "tool_name", tool_name, str)
            _check("tool_call", "input", input, dict, optional=True)
            _check("tool_call", "tool_use_id", tool_use_id, str, optional=True)
        return self._emit_checked(
            "tool_call",
            {"tool_name": tool_name, "tool_use_id": tool_use_id or new_id(), "input": input or {}},
        )

    def tool_result(
        self,
        tool_use_id: str,
        output: Any = "",
        is_error: bool = False,
        tool_name: str | None = None,
    ) -> Event:
        """A tool answered; ``tool_name`` defaults to the name of the matching call."""
        if not (
            isinstance(tool_use_id, str)
            and isinstance(is_error, bool)
            and isinstance(tool_name, _STR_OR_NONE)
        ):
            _check("tool_result", "tool_use_id", tool_use_id, str)
            _check("tool_result", "is_error", is_error, bool)
            _check("tool_result", "tool_name", tool_name, str, optional=True)
        if tool_name is None:
            call = self.open_tool_calls.get(tool_use_id)
            tool_name = call.data["tool_name"] if call is not None else None
        data = {
            "tool_use_id": tool_use_id,
            "tool_name": tool_name,
            "output": output,
            "is_error": is_error,
        }
        if not isinstance(output, _SCALARS):
            # Structured output (content blocks, dicts) must be JSON: let pydantic check it.
            return self.emit("tool_result", data)
        return self._emit_checked("tool_result", data)

    def text(self, text: str) -> Event:
        _check("text", "text", text, str)
        return self._emit_checked("text", {"text": text})

    def thinking(self, text: str) -> Event:
        _check("thinking", "text", text, str)
        return self._emit_checked("thinking", {"text": text})

    def error(self, message: str, error_type: str | None = None) -> Event:
        return self.emit("error", {"message": message, "error_type": error_type})

    def user_message(self, text: str) -> Event:
        return self.emit("user_message", {"text": text})

    def hint(self, name: str) -> Event:
        """Tell the gate something (``user_waiting``, ``task_completed``, ``agent_failed``...)."""
        return self.emit("hint", {"name": name})


def _check(helper: str, name: str, value: Any, expected: type, *, optional: bool = False) -> None:
    if (value is None and optional) or isinstance(value, expected):
        return
    raise TypeError(
        f"{helper}(): {name} must be {expected.__name__}"
        f"{' or None' if optional else ''}, not {type(value).__name__}"
    )


def jsonable(value: Any) -> Any:
    """A JSON-safe, bounded rendering of a function's return value for the completion event."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return value if len(value) <= _RESULT_LIMIT else value[:_RESULT_LIMIT] + "…"
    try:
        text = json.dumps(value, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    else:
        if len(text) <= _RESULT_LIMIT:
            return json.loads(text)
    return text if len(text) <= _RESULT_LIMIT else text[:_RESULT_LIMIT] + "…"


def describe_keys(obj: Any, limit: int = 10) -> str:
    """The first ``limit`` keys (of a dict) or attributes (of an object), for a message."""
    if isinstance(obj, dict):
        keys = sorted(map(str, obj))
    elif hasattr(obj, "__dict__"):
        keys = sorted(vars(obj))
    else:
        return "none"
    return ", ".join(keys[:limit]) + (", ..." if len(keys) > limit else "") or "none"
