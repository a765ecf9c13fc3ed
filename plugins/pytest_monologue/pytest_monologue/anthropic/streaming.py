"""A reply as the Messages API streams it: the server-sent events of one message."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

__all__ = ["STREAM_CHUNK", "stream_events"]

# Size of the text_delta / input_json_delta chunks a streamed reply is cut into.
STREAM_CHUNK = 12


def stream_events(message: Any) -> Iterator[tuple[str, str]]:
    """``(event name, data JSON)`` pairs streaming ``message`` as the API does.

    ``message_start`` (empty content), then per block ``content_block_start``, deltas cut
    into :data:`STREAM_CHUNK`-character pieces (``text_delta``, ``thinking_delta``,
    ``input_json_delta``), ``content_block_stop``; a ``ping`` after the first block starts;
    ``message_delta`` with the stop reason and output tokens; ``message_stop``.
    """
    from anthropic.types import (
        RawContentBlockDeltaEvent,
        RawContentBlockStartEvent,
        RawContentBlockStopEvent,
        RawMessageDeltaEvent,
        RawMessageStartEvent,
        RawMessageStopEvent,
    )

    def chunks(text: str) -> list[str]:
        return [text[i : i + STREAM_CHUNK] for i in range(0, len(text), STREAM_CHUNK)] or [""]

    start = message.model_dump(exclude_unset=True)
    start.update(content=[], stop_reason=None)
    start["usage"] = {**start["usage"], "output_tokens": 1}
    events: list[Any] = [RawMessageStartEvent(type="message_start", message=start)]
    for index, block in enumerate(message.content):
        kind = block.type
        if kind == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": part} for part in chunks(block.text)]
        elif kind == "thinking":
            opening = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [
                {"type": "thinking_delta", "thinking": part} for part in chunks(block.thinking)
            ]
            deltas.append({"type": "signature_delta", "signature": block.signature or "sig"})
        elif kind == "tool_use":
            opening = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
            deltas = [
                {"type": "input_json_delta", "partial_json": part}
                for part in ["", *chunks(json.dumps(block.input))]
            ]
        else:
            continue
        events.append(
            RawContentBlockStartEvent.model_validate(
                {"type": "content_block_start", "index": index, "content_block": opening}
            )
        )
        events += [
            RawContentBlockDeltaEvent.model_validate(
                {"type": "content_block_delta", "index": index, "delta": delta}
            )
            for delta in deltas
        ]
        events.append(RawContentBlockStopEvent(type="content_block_stop", index=index))
    events.insert(2 if len(events) > 1 else 1, {"type": "ping"})
    events.append(
        RawMessageDeltaEvent.model_validate(
            {
                "type": "message_delta",
                "delta": {"stop_reason": message.stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": message.usage.output_tokens},
            }
        )
    )
    events.append(RawMessageStopEvent(type="message_stop"))
    for event in events:
        if isinstance(event, dict):
            yield event["type"], json.dumps(event)
        else:
            yield event.type, event.model_dump_json(exclude_unset=True)
