"""What the page is sent of an event: the recorded event, its large values cut, framed as
server-sent events ready for the socket.

Cut values keep their head and say how much went; the event then carries ``full``, the
address of the whole recorded event, so nothing is hidden, only deferred. A line no longer
than the limit cannot hold anything to cut: it is sent as recorded, without re-encoding.
"""

from __future__ import annotations

import json
from typing import Any, Final
from urllib.parse import quote

from .reading import RawEvent

__all__ = ["frame", "full_event_url", "present", "sse"]

_MAX_ITEMS: Final = 100


def full_event_url(session_id: str, event_id: str) -> str:
    return f"/api/sessions/{quote(session_id)}/events/{quote(event_id)}"


def present(raw: bytes, event: dict[str, Any], session_id: str, clip_chars: int) -> bytes:
    """The event's JSON for the page: strings over ``clip_chars`` and lists over 100 items
    in its ``data`` cut; ``clipped`` and ``full`` say when something was."""
    line = raw.rstrip(b"\r\n")
    # A bare CR (JSON whitespace, never written by the recorder) would end an SSE line.
    as_recorded = b"\r" not in line
    if len(raw) <= clip_chars and as_recorded:
        return line
    data, cut = _clip(event["data"], clip_chars)
    if not cut:
        return line if as_recorded else json.dumps(event).encode()
    body = {**event, "data": data, "clipped": True, "full": full_event_url(session_id, event["id"])}
    return json.dumps(body).encode()


def sse(kind: str, data: bytes, event_id: str | None = None) -> bytes:
    """One server-sent event (``data`` is one line of JSON: it holds no newline)."""
    head = b"event: " + kind.encode() + b"\n"
    if event_id is not None:
        head += b"id: " + event_id.encode() + b"\n"
    return head + b"data: " + data + b"\n\n"


def frame(events: list[RawEvent], session_id: str, clip_chars: int) -> bytes:
    """Every event of a batch as one chunk of ``event`` messages, each with its line as id."""
    return b"".join(
        sse("event", present(raw, event, session_id, clip_chars), str(lineno))
        for lineno, raw, event in events
    )


def _clip(value: Any, limit: int) -> tuple[Any, bool]:
    if isinstance(value, str):
        if len(value) <= limit:
            return value, False
        return f"{value[:limit]}…[{len(value) - limit} chars cut]", True
    if isinstance(value, dict):
        cut = False
        out: dict[str, Any] = {}
        for key, item in value.items():
            out[key], item_cut = _clip(item, limit)
            cut = cut or item_cut
        return out, cut
    if isinstance(value, list):
        items = [_clip(item, limit) for item in value[:_MAX_ITEMS]]
        cut = len(value) > _MAX_ITEMS or any(item_cut for _, item_cut in items)
        kept = [item for item, _ in items]
        if len(value) > _MAX_ITEMS:
            kept.append(f"…[{len(value) - _MAX_ITEMS} more items cut]")
        return kept, cut
    return value, False
