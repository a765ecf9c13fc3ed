"""Claude Agent SDK messages as events, without importing the SDK.

Messages are recognised by class name (``AssistantMessage``, ``UserMessage``,
``SystemMessage`` and its subclasses, ``ResultMessage``, ``StreamEvent``) and content blocks
by their attributes, then rewritten as the stream-json dicts the SDK parsed them from, so
that one parser reads both. A raw stream-json dict (a line of ``claude -p --output-format
stream-json``, or the same shape without its ids) is accepted as it is.

Per session, the parser (and so what it remembers: tool names, sub-agents, calls already
reported) lives in ``session.state["claude"]``, shared with :func:`monologue_claude.sdk_hooks`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .parsers import ShapeError, StreamJsonParser

if TYPE_CHECKING:
    from monologue import Session
    from monologue.events import Event

STATE_KEY = "claude"

MESSAGE_CLASSES = {
    "AssistantMessage": "assistant",
    "UserMessage": "user",
    "SystemMessage": "system",
    "ResultMessage": "result",
    "StreamEvent": "stream_event",
}
_STREAM_JSON_TYPES = frozenset({"system", "assistant", "user", "result", "stream_event"})


def message_kind(obj: Any) -> str | None:
    """The stream-json type of an SDK message object (subclasses included), else ``None``."""
    for cls in type(obj).__mro__:
        kind = MESSAGE_CLASSES.get(cls.__name__)
        if kind is not None:
            return kind
    return None


def is_stream_json(obj: Any) -> bool:
    """A stream-json message as a dict: the Claude Agent SDK's message shape. Its ids
    (``session_id``, ``uuid``, ``parent_tool_use_id``) may be missing, as in a dict an agent
    builds itself; then the shape its type requires must be there."""
    if not isinstance(obj, dict) or obj.get("type") not in _STREAM_JSON_TYPES:
        return False
    if "session_id" in obj or "parent_tool_use_id" in obj:
        return True
    kind = obj["type"]
    if kind in ("assistant", "user"):
        message = obj.get("message")
        return isinstance(message, dict) and "content" in message
    if kind == "stream_event":
        return "event" in obj
    return "subtype" in obj


def parser_of(session: Session | None) -> StreamJsonParser:
    """The session's Claude parser (made on first use); a throwaway one without a session."""
    if session is None:
        return StreamJsonParser()
    with session.lock:
        parser = session.state.get(STATE_KEY)
        if not isinstance(parser, StreamJsonParser):
            parser = session.state[STATE_KEY] = StreamJsonParser(agent=session.agent)
    return parser


def adapt_message(obj: Any, session: Session | None) -> list[Event] | None:
    """Events for an SDK message or stream-json dict; ``None`` for anything else."""
    kind = message_kind(obj)
    if kind is None:
        return parser_of(session).interpret(obj) if is_stream_json(obj) else None
    try:
        as_dict = to_stream_json(obj, kind)
    except AttributeError as exc:
        raise ShapeError(f"{type(obj).__name__} is missing an attribute: {exc}") from None
    return parser_of(session).interpret(as_dict)


def to_stream_json(obj: Any, kind: str) -> dict[str, Any]:
    """The stream-json message an SDK message object was parsed from (what we read of it)."""
    if kind in ("assistant", "user"):
        content = obj.content
        if not isinstance(content, str):
            content = [block_dict(block) for block in content]
        message: dict[str, Any] = {"role": kind, "content": content}
        if kind == "assistant":
            message["id"] = getattr(obj, "message_id", None)
            message["model"] = getattr(obj, "model", None)
        return {
            "type": kind,
            "message": message,
            "parent_tool_use_id": getattr(obj, "parent_tool_use_id", None),
        }
    if kind == "result":
        return {
            "type": "result",
            "subtype": obj.subtype,
            "is_error": obj.is_error,
            "result": getattr(obj, "result", None),
            "num_turns": getattr(obj, "num_turns", None),
            "duration_ms": getattr(obj, "duration_ms", None),
            "total_cost_usd": getattr(obj, "total_cost_usd", None),
        }
    # System messages (init, task progress, hook notices) and partial stream events carry
    # nothing to narrate: the complete AssistantMessage follows every stream of deltas.
    return {"type": kind}


def block_dict(block: Any) -> Any:
    """A content block object as its API dict, recognised by its attributes."""
    if isinstance(block, dict):
        return block
    if hasattr(block, "tool_use_id"):
        return {
            "type": "tool_result",
            "tool_use_id": block.tool_use_id,
            "content": getattr(block, "content", None),
            "is_error": getattr(block, "is_error", None),
        }
    if hasattr(block, "thinking"):
        return {"type": "thinking", "thinking": block.thinking}
    if hasattr(block, "name") and hasattr(block, "input"):
        server = type(block).__name__.startswith("Server")
        return {
            "type": "server_tool_use" if server else "tool_use",
            "id": getattr(block, "id", None),
            "name": block.name,
            "input": block.input,
        }
    if hasattr(block, "text"):
        return {"type": "text", "text": block.text}
    return {"type": type(block).__name__}
