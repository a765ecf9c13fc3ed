"""The ``narrate`` implementation: one Messages API request per narration turn.

Runs on the core's narration worker, never on the agent's thread. The core enforces
``narrate_timeout_s`` from outside; the request is also bounded here (the client timeout
and every retry wait end slightly before it), so that a slow server yields this plugin's
own, precise error and no socket outlives the turn.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from monologue import Narration
from monologue.events import Usage

from .models import resolve_model
from .prompting import build_prompt
from .settings import api_key
from .state import settings_of
from .transport import NarrationError, create_message

if TYPE_CHECKING:
    from monologue import Session
    from monologue.events import Event

_QUOTES = {'"': '"', "“": "”", "'": "'"}


def request_budget(timeout_s: float) -> float:
    """Seconds one narration may spend: the timeout, less a margin to report first."""
    return timeout_s - min(timeout_s * 0.1, 0.5)


def narrate(
    session: Session,
    events: list[Event],
    history: list[str],
    reason: str,
    feedback: list[str] | None = None,
) -> Narration:
    """One narration; with ``feedback`` (a claim checker's findings on the first answer),
    the same prompt with those findings, so the model can say only what the events show."""
    settings = settings_of(session)
    key = api_key()
    if key is None:
        raise NarrationError("ANTHROPIC_API_KEY is not set any more; cannot narrate")
    parts = build_prompt(session, events, history, reason, settings)
    user = parts["user"]
    if feedback:
        findings = "\n".join(f"- {line}" for line in feedback)
        user += (
            "\n\nYour previous narration of these events made claims the events do not "
            f"show:\n{findings}\nNarrate again, stating only what the events show."
        )
    request: dict[str, Any] = {
        "model": resolve_model(session.config.model),
        "max_tokens": settings.max_tokens,
        "system": parts["system"],
        "messages": [{"role": "user", "content": user}],
    }
    deadline = time.monotonic() + request_budget(session.config.narrate_timeout_s)
    message = create_message(settings, key, request, deadline)
    return to_narration(message)


def clean_reply(text: str) -> str:
    """The reply without surrounding whitespace or quotes the model added anyway."""
    text = text.strip()
    if len(text) > 3 and _QUOTES.get(text[0]) == text[-1]:
        text = text[1:-1].strip()
    return text


def to_narration(message: Any) -> Narration:
    """A :class:`Narration` from an SDK ``Message`` (its text blocks, model and usage)."""
    text = "".join(
        str(getattr(block, "text", ""))
        for block in message.content
        if getattr(block, "type", "") == "text"
    )
    raw_usage = getattr(message, "usage", None)
    usage = None
    if raw_usage is not None:
        counters = {
            name: value
            for name in ("cache_creation_input_tokens", "cache_read_input_tokens")
            if isinstance(value := getattr(raw_usage, name, None), int)
        }
        usage = Usage(
            input_tokens=getattr(raw_usage, "input_tokens", 0) or 0,
            output_tokens=getattr(raw_usage, "output_tokens", 0) or 0,
            **counters,
        )
    model = getattr(message, "model", None)
    return Narration(text=clean_reply(text), model=str(model) if model else None, usage=usage)
