"""Narratives as OpenTelemetry span events, sent over OTLP/HTTP.

When a session starts and an OTLP endpoint is configured (``OTEL_EXPORTER_OTLP_ENDPOINT`` or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``; the exporter reads the other standard
``OTEL_EXPORTER_OTLP_*`` variables itself), the session's narratives go on a span:

- the agent's current span, when the session starts inside one (the agent is traced
  already: narration shows up within its own trace), else
- a span of its own, ``invoke_agent <agent>``, ended when the session completes.

Each ``chapter`` event (monologue-claude-hooks) opens a child span of that span, ``chapter
<title>``, ended by the next chapter or the session's end: a trace shows the run's parts.
Each narrative is a ``monologue.narrative`` span event whose attributes are its text, the ids
of the events it covers, the narrator, and the GenAI attributes that fit (agent name,
conversation id, the narrator's model and token usage). Spans are exported by a tracer
provider of this plugin's own (a ``BatchSpanProcessor`` flushed when each session ends),
unless the process has set an SDK tracer provider already, which is then used as it is.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import TYPE_CHECKING, Any

from monologue import hookimpl

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import Span

    from monologue import Session
    from monologue.events import Event

__all__ = [
    "EVENT_NAME",
    "NarrativeExporter",
    "on_complete",
    "on_event",
    "on_narrative",
    "on_session_start",
]

log = logging.getLogger("monologue.otel")

EVENT_NAME = "monologue.narrative"
_ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")


class NarrativeExporter:
    """Owns the tracer provider and the span each live session narrates onto."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._provider: TracerProvider | None = None
        self._spans: dict[str, tuple[Span, bool]] = {}  # session id -> (span, ours to end)
        self._chapters: dict[str, Span] = {}  # session id -> its open chapter's span

    @staticmethod
    def enabled() -> bool:
        return any(os.environ.get(name) for name in _ENDPOINT_VARIABLES)

    def start(self, session: Session) -> None:
        from opentelemetry import trace

        current = trace.get_current_span()
        if current.is_recording():
            span, ours = current, False
        else:
            attributes = {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": session.agent,
                "gen_ai.conversation.id": session.id,
            }
            tracer = self._tracer_provider().get_tracer("monologue")
            span, ours = (
                tracer.start_span(f"invoke_agent {session.agent}", attributes=attributes),
                True,
            )
        with self._lock:
            self._spans[session.id] = (span, ours)

    def narrating(self, session: Session) -> bool:
        """Whether ``session``'s narratives are being exported."""
        with self._lock:
            return session.id in self._spans

    def narrative(self, session: Session, narrative: Event) -> None:
        with self._lock:
            found = self._spans.get(session.id)
        if found is not None:
            found[0].add_event(
                EVENT_NAME,
                attributes=_attributes(session, narrative),
                timestamp=_nanoseconds(narrative),
            )

    def chapter(self, session: Session, chapter: Event) -> None:
        """End the open chapter's span and start this one's, under the session's span."""
        from opentelemetry import trace

        at = _nanoseconds(chapter)
        with self._lock:
            found = self._spans.get(session.id)
            previous = self._chapters.pop(session.id, None)
        if previous is not None:
            previous.end(end_time=at)
        if found is None:
            return
        data = chapter.data
        attributes = {
            "monologue.chapter.title": str(data.get("title", "")),
            "monologue.chapter.summary": str(data.get("summary", "")),
            "monologue.chapter.reason": str(data.get("reason", "")),
            "monologue.chapter.covers": [str(i) for i in data.get("covers") or []],
            "gen_ai.conversation.id": session.id,
        }
        tracer = self._tracer_provider().get_tracer("monologue")
        span = tracer.start_span(
            f"chapter {data.get('title', '')}",
            context=trace.set_span_in_context(found[0]),
            attributes=attributes,
            start_time=at,
        )
        with self._lock:
            self._chapters[session.id] = span

    def finish(self, session: Session, completion: Event) -> None:
        with self._lock:
            chapter = self._chapters.pop(session.id, None)
            span, ours = self._spans.pop(session.id, (None, False))
        if chapter is not None:
            chapter.end(end_time=_nanoseconds(completion))
        if span is not None and ours:
            from opentelemetry.trace import Status, StatusCode

            if completion.data.get("is_error"):
                from monologue.redact import redact_text

                result = redact_text(str(completion.data.get("result") or ""))
                span.set_status(Status(StatusCode.ERROR, result))
            span.end()
        provider = self._provider
        if provider is not None:
            provider.force_flush()

    def shutdown(self) -> None:
        """Flush and stop this plugin's own tracer provider (a new one is made if needed)."""
        with self._lock:
            provider, self._provider = self._provider, None
        if provider is not None:
            provider.shutdown()

    def _tracer_provider(self) -> Any:
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider

        existing = trace.get_tracer_provider()
        if isinstance(existing, TracerProvider):
            return existing
        with self._lock:
            if self._provider is None:
                from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
                    OTLPSpanExporter,
                )
                from opentelemetry.sdk.trace.export import BatchSpanProcessor

                provider = TracerProvider()
                provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
                self._provider = provider
            return self._provider


def _nanoseconds(event: Event) -> int:
    return int(event.ts.timestamp() * 1_000_000) * 1000


def _attributes(session: Session, narrative: Event) -> dict[str, Any]:
    from monologue.redact import redact_text

    # A narrative may quote what a tool printed (a failed result is quoted whole): what leaves
    # the process is redacted by the one module every other sink uses.
    data = narrative.data
    attributes: dict[str, Any] = {
        "monologue.narrative.text": redact_text(data["text"]),
        "monologue.narrative.covers": list(data.get("covers") or []),
        "monologue.narrative.reason": redact_text(data.get("reason", "")),
        "monologue.narrator": data.get("narrator", ""),
        "monologue.event.id": narrative.id,
        "gen_ai.agent.name": narrative.agent or session.agent,
        "gen_ai.conversation.id": session.id,
    }
    if data.get("covers_range"):
        # More folded events than a narrative lists: every narrated event in this id range.
        attributes["monologue.narrative.covers_range"] = list(data["covers_range"])
    if data.get("model"):
        attributes["gen_ai.response.model"] = data["model"]
    usage = data.get("usage") or {}
    for key in ("input_tokens", "output_tokens"):
        if usage.get(key):
            attributes[f"gen_ai.usage.{key}"] = usage[key]
    return attributes


EXPORTER = NarrativeExporter()
"""The process's exporter, shared by every session."""


@hookimpl
def on_session_start(session: Session) -> None:
    if not EXPORTER.enabled():
        return
    try:
        EXPORTER.start(session)
    except ImportError as exc:
        log.warning(
            "an OTLP endpoint is set but narratives cannot be exported (%s): "
            "install monologue-otel[exporter]",
            exc,
        )


@hookimpl
def on_narrative(session: Session, narrative: Event) -> None:
    EXPORTER.narrative(session, narrative)


@hookimpl
def on_event(session: Session, event: Event) -> None:
    if event.type == "chapter" and EXPORTER.narrating(session):
        EXPORTER.chapter(session, event)


@hookimpl
def on_complete(session: Session, event: Event) -> None:
    EXPORTER.finish(session, event)
