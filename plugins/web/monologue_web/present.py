"""What the page is sent of an event: the recorded event, its large values cut.

Cut values keep their head and say how much went; the event then carries ``full``, the
address of the whole recorded event, so nothing is hidden, only deferred.
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import quote

from monologue.events import Event

__all__ = ["full_event_url", "present"]

_MAX_ITEMS: Final = 100


def full_event_url(session_id: str, event_id: str) -> str:
    return f"/api/sessions/{quote(session_id)}/events/{quote(event_id)}"


def present(event: Event, session_id: str, clip_chars: int) -> dict[str, Any]:
    """The event as JSON-ready data, strings over ``clip_chars`` and lists over 100 items
    cut; ``clipped`` and ``full`` say when something was."""
    body = event.model_dump(mode="json")
    data, cut = _clip(body["data"], clip_chars)
    body["data"] = data
    if cut:
        body["clipped"] = True
        body["full"] = full_event_url(session_id, event.id)
    return body


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
