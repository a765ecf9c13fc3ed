"""Recognising OpenTelemetry trace files by their content, and reading them.

- OTLP JSON: one export request (``{"resourceSpans": ...}``) per line, as the Collector's
  file exporter appends them: followed line by line by :class:`OtlpLineParser` (``watch``).
  A file holding one pretty-printed request is read whole.
- Exported span lists: ``{"spans": [...]}`` or a bare list of SDK spans, read whole.

Only traces with GenAI spans are taken: a trace without ``gen_ai.operation.name`` (or GenAI
span names) has nothing to narrate, and is refused with that reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from monologue.errors import NotMyFormat, RecordingError
from monologue.events import Event
from monologue.lines import (
    MAX_LINE_BYTES,
    SNIFF_BYTES,
    json_line,
    load_json_document,
    parse_lines,
    sniff,
)

from .convert import SpanConverter
from .spans import ShapeError, otlp_spans, sdk_spans

__all__ = ["Layout", "OtelFile", "OtlpLineParser", "detect", "read_session"]

Layout = Literal["otlp-lines", "otlp-json", "span-list"]

_OTLP = re.compile(rb'^\{\s*"resourceSpans"\s*:')
_SPAN_LIST = re.compile(rb'^(?:\{\s*"spans"\s*:\s*)?\[\s*\{')
# "gen_ai.agent.name": "x" (span lists), or
# {"key": "gen_ai.agent.name", "value": {"stringValue": "x"}} (OTLP JSON)
_AGENT_NAME = re.compile(
    rb'"gen_ai\.agent\.name"\s*(?::|,\s*"value"\s*:\s*\{\s*"stringValue"\s*:)\s*"([^"\\]{1,200})"'
)
_GENAI = re.compile(rb"gen_ai\.|\b(?:invoke_agent|execute_tool|call_llm|chat) ")


def detect(path: Path) -> Layout:
    """How an OpenTelemetry GenAI trace file is laid out; :class:`NotMyFormat` says why it
    is not one."""
    head = sniff(path)
    if _OTLP.match(head):
        layout: Layout = "otlp-lines" if _one_line(head) else "otlp-json"
    elif _SPAN_LIST.match(head) and (b'"context"' in head or b'"span_id"' in head):
        layout = "span-list"
    else:
        raise NotMyFormat("no 'resourceSpans' (OTLP JSON) nor a list of spans with 'context'")
    if not _GENAI.search(head):
        raise NotMyFormat("spans without GenAI attributes (gen_ai.*): nothing to narrate")
    return layout


def _agent_name(path: str | Path) -> str | None:
    try:
        with Path(path).open("rb") as handle:
            found = _AGENT_NAME.search(handle.read(SNIFF_BYTES))
    except OSError:
        return None
    return found.group(1).decode("utf-8", "replace") if found else None


def _one_line(head: bytes) -> bool:
    """Whether the first line holds a whole request (JSON lines), not a pretty-printed one."""
    try:
        json.loads(head.split(b"\n", 1)[0])
    except ValueError:
        return False
    return True


class OtlpLineParser:
    """Follows an OTLP JSON lines file (one export request a line) as it grows."""

    def __init__(self, path: str | Path, *, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.path = Path(path)
        self.max_line_bytes = max_line_bytes
        self.converter = SpanConverter()

    def feed(self, line: bytes, lineno: int) -> list[Event]:
        document = json_line(self.path, line, lineno, self.max_line_bytes)
        return [] if document is None else self.feed_document(document, lineno)

    def feed_document(self, document: Any, lineno: int | None) -> list[Event]:
        try:
            return self.converter.convert(otlp_spans(document))
        except ShapeError as exc:
            problem = f"not an OTLP JSON trace request: {exc}"
            raise RecordingError(self.path, lineno, problem) from None


class OtelFile:
    """The events of an OpenTelemetry GenAI trace file, read when iterated; ``agent`` (the
    first ``gen_ai.agent.name`` near the start of the file) names the replayed session."""

    def __init__(self, path: str | Path, layout: Layout) -> None:
        self.path = Path(path)
        self.layout = layout
        self.agent: str | None = _agent_name(path)

    def __repr__(self) -> str:
        return f"<OtelFile {self.layout} {self.path}>"

    def __iter__(self) -> Iterator[Event]:
        parser = OtlpLineParser(self.path)
        if self.layout == "otlp-lines":
            yield from parse_lines(self.path, parser, parser.max_line_bytes)
            return
        document = load_json_document(self.path)
        if self.layout == "otlp-json":
            yield from parser.feed_document(document, None)
            return
        try:
            spans = sdk_spans(document)
        except ShapeError as exc:
            raise RecordingError(self.path, None, f"not a list of spans: {exc}") from None
        yield from parser.converter.convert(spans)


def read_session(path: str | Path) -> OtelFile:
    """The events of an OpenTelemetry GenAI trace file (OTLP JSON or an exported span list).

    Raises :class:`~monologue.errors.RecordingError` when it is not one (saying why);
    problems inside the file are raised while iterating.
    """
    path = Path(path)
    try:
        return OtelFile(path, detect(path))
    except NotMyFormat as exc:
        raise RecordingError(
            path, None, f"not an OpenTelemetry GenAI trace: {exc.reason}"
        ) from None
