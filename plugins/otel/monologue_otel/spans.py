"""Spans from the two JSON shapes traces are saved in, as one :class:`Span` model.

- OTLP JSON (``{"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}``), what the
  OpenTelemetry Collector's file exporter writes, one request a line: camelCase keys, hex
  ids, times in nanoseconds (often as strings), typed attribute values
  (``{"key": ..., "value": {"stringValue": ...}}``).
- Exported span lists (``{"spans": [...]}`` or a bare list): the Python SDK's
  ``ReadableSpan.to_json()`` shape, snake_case, ``context`` / ``parent`` ids, attributes as a
  plain object, times as nanoseconds or ISO 8601.

A span's GenAI content may be recorded as attributes or, by newer instrumentations, on a
span event (``gen_ai.client.inference.operation.details``) carrying the same ``gen_ai.*``
attributes; some record both. The event's attributes fill what the span's lack, so the
content is read once either way.

Shape errors raise :class:`ShapeError` with the JSON path of the culprit.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from monologue.lines import json_path

__all__ = ["ShapeError", "Span", "otlp_spans", "sdk_spans"]

_M = TypeVar("_M", bound=BaseModel)

DETAILS_EVENT = "gen_ai.client.inference.operation.details"
"""The span event newer GenAI instrumentations record a model call's messages on."""


class ShapeError(ValueError):
    """A trace document does not have the expected shape; the text names the JSON path."""


class Span(BaseModel):
    """One span, whatever file it came from."""

    trace_id: str
    span_id: str
    parent_id: str | None = None
    name: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any] = Field(default_factory=dict)
    failed: bool = False
    status_message: str | None = None

    @property
    def operation(self) -> str:
        """``gen_ai.operation.name``, else the span name's first word."""
        found = self.attributes.get("gen_ai.operation.name")
        return found if isinstance(found, str) else self.name.split(" ", 1)[0]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class _KeyValue(_Open):
    key: str
    value: dict[str, Any] = Field(default_factory=dict)


class _Status(_Open):
    code: int | str | None = None
    message: str | None = None


class _OtlpEvent(_Open):
    name: str = ""
    attributes: list[_KeyValue] = Field(default_factory=list)


class _OtlpSpan(_Open):
    traceId: str
    spanId: str
    parentSpanId: str | None = None
    name: str
    startTimeUnixNano: int | str
    endTimeUnixNano: int | str
    attributes: list[_KeyValue] = Field(default_factory=list)
    events: list[_OtlpEvent] = Field(default_factory=list)
    status: _Status = Field(default_factory=_Status)


class _ScopeSpans(_Open):
    spans: list[_OtlpSpan] = Field(default_factory=list)


class _ResourceSpans(_Open):
    scopeSpans: list[_ScopeSpans] = Field(default_factory=list)


class _OtlpRequest(_Open):
    resourceSpans: list[_ResourceSpans]


class _Context(_Open):
    trace_id: int | str | None = None
    span_id: int | str | None = None


class _SdkStatus(_Open):
    status_code: str | None = None
    description: str | None = None


class _SdkEvent(_Open):
    name: str = ""
    attributes: dict[str, Any] = Field(default_factory=dict)


class _SdkSpan(_Open):
    name: str
    context: _Context
    parent: _Context | None = None
    start_time: int | datetime
    end_time: int | datetime | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)
    events: list[_SdkEvent] = Field(default_factory=list)
    status: _SdkStatus = Field(default_factory=_SdkStatus)


def otlp_spans(document: Any) -> list[Span]:
    """The spans of one OTLP JSON export request."""
    request = _validate(_OtlpRequest, document)
    return [
        Span(
            trace_id=span.traceId,
            span_id=span.spanId,
            parent_id=span.parentSpanId or None,
            name=span.name,
            start_ns=int(span.startTimeUnixNano),
            end_ns=int(span.endTimeUnixNano),
            attributes=_with_events(
                {kv.key: _any_value(kv.value) for kv in span.attributes},
                [
                    (e.name, {kv.key: _any_value(kv.value) for kv in e.attributes})
                    for e in span.events
                ],
            ),
            failed=span.status.code in (2, "STATUS_CODE_ERROR"),
            status_message=span.status.message or None,
        )
        for resource in request.resourceSpans
        for scope in resource.scopeSpans
        for span in scope.spans
    ]


def sdk_spans(document: Any) -> list[Span]:
    """The spans of an exported span list (``{"spans": [...]}`` or a bare list)."""
    items = document.get("spans") if isinstance(document, dict) else document
    if not isinstance(items, list):
        raise ShapeError("at $.spans: expected a list of spans")
    spans = []
    for index, item in enumerate(items):
        span = _validate(_SdkSpan, item, ["$", index])
        start = _nanoseconds(span.start_time)
        parent = span.parent.span_id if span.parent else None
        spans.append(
            Span(
                trace_id=_hex(span.context.trace_id, 32),
                span_id=_hex(span.context.span_id, 16),
                parent_id=_hex(parent, 16) if parent is not None else None,
                name=span.name,
                start_ns=start,
                end_ns=_nanoseconds(span.end_time) if span.end_time is not None else start,
                attributes=_with_events(
                    span.attributes, [(e.name, e.attributes) for e in span.events]
                ),
                failed=(span.status.status_code or "").lower() == "error",
                status_message=span.status.description,
            )
        )
    return spans


def _with_events(
    attributes: dict[str, Any], events: list[tuple[str, dict[str, Any]]]
) -> dict[str, Any]:
    """The span's attributes, with the GenAI content its details events carry and it lacks."""
    merged = dict(attributes)
    for name, found in events:
        if name == DETAILS_EVENT:
            for key, value in found.items():
                if key.startswith("gen_ai."):
                    merged.setdefault(key, value)
    return merged


def _validate(model: type[_M], value: Any, at: list[str | int] | None = None) -> _M:
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = json_path([*(at or ["$"]), *first["loc"]])
        raise ShapeError(f"at {where}: {first['msg']}") from None


def _any_value(value: dict[str, Any]) -> Any:
    """An OTLP ``AnyValue`` as plain JSON."""
    for kind, found in value.items():
        if kind == "intValue":
            return int(found)
        if kind == "arrayValue":
            return [_any_value(item) for item in found.get("values", [])]
        if kind == "kvlistValue":
            return {kv["key"]: _any_value(kv.get("value", {})) for kv in found.get("values", [])}
        return found
    return None


def _hex(value: int | str | None, width: int) -> str:
    if isinstance(value, int):
        return f"{value:0{width}x}"
    return str(value or "").removeprefix("0x")


def _nanoseconds(value: int | datetime) -> int:
    if isinstance(value, int):
        return value
    return int(value.timestamp() * 1_000_000) * 1000
