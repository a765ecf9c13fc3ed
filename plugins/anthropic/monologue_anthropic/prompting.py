"""The system prompt and user message of one narration request.

Both come from the preset template (``prompts/presets/<preset>.md``, overridable through
``prompts_dir``); ``system_prompt`` in the configuration replaces the system part. Events
reach the template as :class:`~monologue.digest.EventDigest` lines: redacted, truncated to
the ``anthropic_*_limit`` settings, at most ``anthropic_max_events`` of them, and unable to
close the ``<events>`` section that marks them as untrusted data. The rendered user
message is redacted once more as a whole, so nothing the template adds (agent name,
history, what is running) can carry a secret out either.

What the events' results show is precomputed (:func:`monologue.digest.outcome_facts`) and
given to the template as ``outcomes``, so the model never has to infer an outcome: a
background job only started, a call without a result is running, cancelled siblings are one
consequence of one failure.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from monologue.digest import (
    EventDigest,
    digest_events,
    outcome_facts,
    salient_input,
    truncate,
)
from monologue.prompts import render_parts
from monologue.redact import redact_text

if TYPE_CHECKING:
    from monologue import Session
    from monologue.events import Event

    from .settings import AnthropicSettings

HISTORY_LIMIT = 300
"""Characters of each earlier narrative shown as history."""

CONTEXT_LINES = 40
"""Lines of a long session's context slice shown before the new events."""

_DATA_MARKER = re.compile(r"<(/?)(events)\b", re.IGNORECASE)
_ESCAPED_BREAK = re.compile(r"(?:\\r)?\\n")


def _defang(text: str) -> str:
    """One line, unable to open or close the section that marks events as data: a tool's
    output can neither end that section nor pass itself off as a numbered event line.
    Escaped line breaks (a literal ``\\n``) go too, so the model has none to copy."""
    return _DATA_MARKER.sub(r"&lt;\1\2", " ".join(_ESCAPED_BREAK.sub(" ", text).split()))


def event_lines(events: list[Event], agent: str, settings: AnthropicSettings) -> list[EventDigest]:
    """Digests of the newest ``max_events`` events, after a note counting the others."""
    omitted = max(len(events) - settings.max_events, 0)
    digests = digest_events(
        events[omitted:],
        input_limit=settings.input_limit,
        output_limit=settings.output_limit,
        text_limit=settings.text_limit,
    )
    if omitted:
        note = EventDigest(
            index=0, type="note", agent=agent, text=f"{omitted} earlier event(s) not shown"
        )
        digests.insert(0, note)
    return [
        digest.model_copy(
            update={
                "index": number,
                "input": _defang(digest.input),
                "output": _defang(digest.output),
                "text": _defang(digest.text),
            }
        )
        for number, digest in enumerate(digests, 1)
    ]


def still_running(session: Session, now: datetime | None = None) -> str:
    """What the agent is still waiting on, for an idle narration ("" when nothing is)."""
    now = now or datetime.now(UTC)
    with session.lock:
        calls = list(session.open_tool_calls.values())
    described = []
    for call in calls:
        name = call.data["tool_name"]
        detail = salient_input(call.data.get("input") or {}, 80)
        seconds = max((now - call.ts).total_seconds(), 0.0)
        what = f"{name} ({detail})" if detail else name
        described.append(f"{what} has been running for {seconds:.0f} s")
    return "; ".join(described)


def _context_slice(session: Session) -> list[str]:
    """The session so far as a plugin keeps it (monologue-gate's slice: the newest events,
    then a rolling summary of older ones), one defanged line each; empty when none does."""
    text, _ = session.hooks.first("narrator_context", session=session)
    if not isinstance(text, str):
        return []
    return [line for line in (_defang(raw) for raw in text.splitlines()) if line][-CONTEXT_LINES:]


def build_prompt(
    session: Session,
    events: list[Event],
    history: list[str],
    reason: str,
    settings: AnthropicSettings,
) -> dict[str, str]:
    """``{"system": ..., "user": ...}`` for one narration request."""
    config = session.config
    parts = render_parts(
        f"presets/{config.preset}.md",
        config.prompts_dir,
        agent=session.agent,
        events=event_lines(events, session.agent, settings),
        history=[truncate(redact_text(_defang(line)), HISTORY_LIMIT) for line in history],
        first=session.is_first,
        final=reason == "final",
        reason=reason,
        running=still_running(session) if reason == "idle" else "",
        outcomes=[_defang(fact) for fact in outcome_facts(events[-settings.max_events :])],
        context=_context_slice(session),
    )
    system = config.system_prompt.strip() if config.system_prompt else parts["system"]
    return {"system": system, "user": redact_text(parts["user"])}
