"""``emit``: report events to the current session from anywhere in the agent's code.

Every function is a no-op returning ``None`` outside a session, so library code can emit
unconditionally.
"""

from __future__ import annotations

from typing import Any

from monologue.events import Event

from ._session import current


class _Emit:
    """Namespace object: ``emit.tool_call(...)``, ``emit.tool_result(...)``..."""

    def tool_call(
        self, tool_name: str, input: dict[str, Any] | None = None, tool_use_id: str | None = None
    ) -> Event | None:
        s = current()
        return s.tool_call(tool_name, input, tool_use_id) if s else None

    def tool_result(
        self,
        tool_use_id: str,
        output: Any = "",
        is_error: bool = False,
        tool_name: str | None = None,
    ) -> Event | None:
        s = current()
        return s.tool_result(tool_use_id, output, is_error, tool_name) if s else None

    def text(self, text: str) -> Event | None:
        s = current()
        return s.text(text) if s else None

    def thinking(self, text: str) -> Event | None:
        s = current()
        return s.thinking(text) if s else None

    def error(self, message: str, error_type: str | None = None) -> Event | None:
        s = current()
        return s.error(message, error_type) if s else None

    def hint(self, name: str) -> Event | None:
        s = current()
        return s.hint(name) if s else None

    def feed(self, obj: Any) -> list[Event]:
        s = current()
        return s.feed(obj) if s else []

    def event(self, type: str, data: dict[str, Any] | None = None, **fields: Any) -> Event | None:
        """Any event type, including plugin-defined ones."""
        s = current()
        return s.emit(type, data, **fields) if s else None


emit = _Emit()
