"""Reassembling content blocks from Messages API stream events.

A streamed message arrives as ``message_start``, then per content block
``content_block_start``, deltas (``text_delta``, ``thinking_delta``, ``input_json_delta``
chunks of a tool's JSON input...) and ``content_block_stop``, then ``message_delta`` and
``message_stop``. :class:`StreamAssembler` turns that back into whole content blocks, each
returned when its ``content_block_stop`` arrives: a tool call is only known once its input
JSON is complete. The SDK's ``messages.stream()`` helper also yields its own events (``text``,
``input_json``, ``thinking``...) and a ``content_block_stop`` that carries the finished
block; those are understood too, and the helper events add nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

STREAM_EVENT_TYPES = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
    }
)
HELPER_EVENT_TYPES = frozenset({"text", "input_json", "thinking", "signature", "citation"})
"""Events only the SDK's stream helper yields, each repeating a raw delta."""

_TOOL_USE_TYPES = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
_DELTA_FIELDS = {
    "text_delta": "text",
    "thinking_delta": "thinking",
    "input_json_delta": "partial_json",
}


class StreamProblem(ValueError):
    """The events do not form a valid stream (a delta for a block never started...)."""


@dataclass
class _OpenBlock:
    start: dict[str, Any]
    parts: list[str] = field(default_factory=list)


class StreamAssembler:
    """Whole content blocks from stream events, one message at a time."""

    def __init__(self) -> None:
        self._open: dict[int, _OpenBlock] = {}

    @property
    def open_blocks(self) -> dict[int, str]:
        """Blocks started and not stopped yet: index to block type."""
        return {index: str(block.start.get("type")) for index, block in self._open.items()}

    def feed(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        """The content blocks ``event`` completes (zero or one)."""
        kind = event.get("type")
        if kind == "message_start":
            # A new message: blocks of an interrupted one will never be finished.
            self._open.clear()
            return []
        if kind == "content_block_start":
            block = event.get("content_block")
            if not isinstance(block, dict) or "type" not in block:
                raise StreamProblem(f"content_block_start {_index(event)} has no content_block")
            self._open[_index(event)] = _OpenBlock(dict(block))
            return []
        if kind == "content_block_delta":
            delta = event.get("delta") or {}
            field_name = _DELTA_FIELDS.get(str(delta.get("type")))
            if field_name is not None:
                self._block(event).parts.append(str(delta.get(field_name, "")))
            return []
        if kind == "content_block_stop":
            index = _index(event)
            block = self._block(event)
            del self._open[index]
            finished = event.get("content_block")
            if isinstance(finished, dict):
                return [finished]
            return [_finish(block, index)]
        if kind == "message_stop" and self._open:
            still_open = ", ".join(f"{i} ({t})" for i, t in self.open_blocks.items())
            self._open.clear()
            raise StreamProblem(f"message_stop while content block {still_open} is still open")
        return []

    def _block(self, event: dict[str, Any]) -> _OpenBlock:
        index = _index(event)
        block = self._open.get(index)
        if block is None:
            raise StreamProblem(
                f"{event.get('type')} for content block {index}, which was never started"
            )
        return block


def _index(event: dict[str, Any]) -> int:
    index = event.get("index")
    if not isinstance(index, int):
        raise StreamProblem(f"{event.get('type')} without an integer index")
    return index


def _finish(block: _OpenBlock, index: int) -> dict[str, Any]:
    done = dict(block.start)
    joined = "".join(block.parts)
    kind = done.get("type")
    if kind == "text":
        done["text"] = str(done.get("text") or "") + joined
    elif kind == "thinking":
        done["thinking"] = str(done.get("thinking") or "") + joined
    elif kind in _TOOL_USE_TYPES and joined.strip():
        try:
            done["input"] = json.loads(joined)
        except json.JSONDecodeError as exc:
            raise StreamProblem(
                f"content block {index} ({kind} {done.get('name')!r}): its input JSON is not "
                f"valid once complete ({exc.msg} at character {exc.pos}): {joined[:120]!r}"
            ) from None
    return done
