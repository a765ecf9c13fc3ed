"""Events from Anthropic Messages API objects, for ``session.feed()`` and decorated generators.

Understood, as SDK objects or as their plain-dict forms:

- a ``Message`` (``"type": "message"``): its ``text``, ``thinking`` and ``tool_use`` blocks
  (server tool uses and their results too);
- a ``MessageParam`` (``{"role": ..., "content": ...}``), so an agent loop can feed both
  sides: the user's ``tool_result`` blocks become ``tool_result`` events, user text becomes
  ``user_message``;
- a lone content block;
- raw stream events (``message_start`` ... ``message_stop``) and the events of the SDK's
  ``messages.stream()`` helper: blocks are reassembled per session
  (``session.state["anthropic"]``) and become events when they stop, so a tool call is
  emitted once its input JSON is complete.

Feed either a message's stream events or the finished message, not both: each would be
narrated.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from monologue.events import Event
from monologue.origins import prompt_data

from .stream import HELPER_EVENT_TYPES, STREAM_EVENT_TYPES, StreamAssembler, StreamProblem

if TYPE_CHECKING:
    from monologue import Session

log = logging.getLogger("monologue.anthropic")

ToolNames = Callable[[str], str | None]
"""Looks up the tool name of a ``tool_use_id`` (tool results do not repeat it)."""

_TOOL_USE_TYPES = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
_BLOCK_TYPES = (
    frozenset({"text", "thinking", "redacted_thinking", "tool_result", "image", "document"})
    | _TOOL_USE_TYPES
)
_ROLES = frozenset({"user", "assistant"})

# Without a session (adapt called directly), streams are assembled here.
_detached = StreamAssembler()


def plain(obj: Any) -> dict[str, Any] | None:
    """``obj`` as a plain dict when it is an Anthropic SDK model or a dict, else ``None``."""
    if isinstance(obj, dict):
        return obj
    if type(obj).__module__.startswith("anthropic.") and hasattr(obj, "model_dump"):
        dumped = obj.model_dump(mode="json")
        return dumped if isinstance(dumped, dict) else None
    return None


def is_stream_helper(obj: Any) -> bool:
    return type(obj).__module__.startswith("anthropic.lib.streaming")


def adapt(obj: Any, session: Session | None) -> list[Event] | None:
    """Events for ``obj``, or ``None`` when it is not an Anthropic object."""
    data = plain(obj)
    if data is None:
        return None
    kind = data.get("type")
    lookup = _session_tool_names(session)
    if kind == "message" and data.get("role") == "assistant":
        return content_events(data.get("content"), "assistant", lookup)
    if kind in STREAM_EVENT_TYPES:
        return stream_event_events(data, _assembler(session), lookup)
    if kind in HELPER_EVENT_TYPES and (is_stream_helper(obj) or "snapshot" in data):
        return []
    if kind in _BLOCK_TYPES or (isinstance(kind, str) and kind.endswith("_tool_result")):
        return block_events(data, "assistant" if kind != "tool_result" else "user", lookup)
    if kind is None and data.get("role") in _ROLES and "content" in data and len(data) <= 3:
        return content_events(data["content"], str(data["role"]), lookup)
    return None


def stream_event_events(
    event: dict[str, Any], assembler: StreamAssembler, tool_names: ToolNames
) -> list[Event]:
    """Events for the blocks one stream event completes; a broken stream is an ``error``."""
    try:
        blocks = assembler.feed(event)
    except StreamProblem as exc:
        log.warning("anthropic adapter: ignoring a broken stream event: %s", exc)
        return [
            Event(
                type="error",
                data={"message": f"Anthropic stream: {exc}", "error_type": "StreamProblem"},
            )
        ]
    return [found for block in blocks for found in block_events(block, "assistant", tool_names)]


def content_events(content: Any, role: str, tool_names: ToolNames) -> list[Event]:
    """Events for a message's ``content``: a string, or a list of content blocks."""
    if isinstance(content, str):
        return block_events({"type": "text", "text": content}, role, tool_names)
    if not isinstance(content, list):
        return []
    seen: dict[str, str] = {}

    def names(tool_use_id: str) -> str | None:
        return seen.get(tool_use_id) or tool_names(tool_use_id)

    events: list[Event] = []
    for block in content:
        data = plain(block)
        if data is None:
            continue
        if data.get("type") in _TOOL_USE_TYPES:
            seen[str(data.get("id"))] = str(data.get("name"))
        events += block_events(data, role, names)
    return events


def block_events(block: dict[str, Any], role: str, tool_names: ToolNames) -> list[Event]:
    """The event one content block stands for (none for images, redacted thinking...)."""
    kind = str(block.get("type"))
    if kind == "text":
        text = str(block.get("text") or "")
        if not text.strip():
            return []
        if role == "user":
            return [Event(type="user_message", data=prompt_data(text))]
        return [Event(type="text", data={"text": text})]
    if kind == "thinking":
        text = str(block.get("thinking") or "")
        return [Event(type="thinking", data={"text": text})] if text.strip() else []
    if kind in _TOOL_USE_TYPES:
        tool_input = block.get("input")
        return [
            Event(
                type="tool_call",
                data={
                    "tool_name": str(block.get("name") or kind),
                    "tool_use_id": str(block.get("id") or ""),
                    "input": tool_input if isinstance(tool_input, dict) else {},
                },
            )
        ]
    if kind == "tool_result" or kind.endswith("_tool_result"):
        tool_use_id = str(block.get("tool_use_id") or "")
        content = block.get("content")
        is_error = bool(block.get("is_error")) or (
            isinstance(content, dict) and str(content.get("type", "")).endswith("_error")
        )
        return [
            Event(
                type="tool_result",
                data={
                    "tool_use_id": tool_use_id,
                    "tool_name": tool_names(tool_use_id),
                    "output": _slim(content),
                    "is_error": is_error,
                },
            )
        ]
    return []


def _slim(content: Any) -> Any:
    """Tool output without inline media: an image's base64 data is no use to a narrator."""
    if isinstance(content, list):
        return [_slim(item) for item in content]
    if isinstance(content, dict) and content.get("type") in ("image", "document"):
        return {"type": content["type"]}
    return "" if content is None else content


def _session_tool_names(session: Session | None) -> ToolNames:
    def lookup(tool_use_id: str) -> str | None:
        if session is None:
            return None
        call = session.open_tool_calls.get(tool_use_id)
        return None if call is None else str(call.data["tool_name"])

    return lookup


def _assembler(session: Session | None) -> StreamAssembler:
    if session is None:
        from monologue import current

        session = current()
    if session is None:
        return _detached
    from .state import state_of

    return state_of(session).stream
