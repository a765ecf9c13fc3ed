"""monologue-otel: OpenTelemetry GenAI traces in, narratives out.

Reader:

- ``load_session``: OTLP JSON (the Collector's file exporter: one request a line) and
  exported span lists, recognised by their content; ``invoke_agent`` / ``chat`` /
  ``call_llm`` / ``execute_tool`` spans become events, tool executions matched to the calls
  the model asked for when the trace has no ids.
- ``line_parser``: follow an OTLP JSON lines file as the Collector appends to it.

Exporter (needs the ``exporter`` extra, and ``OTEL_EXPORTER_OTLP_ENDPOINT`` or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` set, else it stays off):

- each narrative becomes a ``monologue.narrative`` span event on the session's span, with
  GenAI attributes and the covered event ids, sent over OTLP/HTTP by the OpenTelemetry SDK.

OpenTelemetry itself is imported only when a session exports.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from monologue import hookimpl

from .export import on_complete, on_event, on_narrative, on_session_start

if TYPE_CHECKING:
    from monologue.events import Event

    from .reader import OtelFile, OtlpLineParser

__all__ = [
    "line_parser",
    "load_session",
    "on_complete",
    "on_event",
    "on_narrative",
    "on_session_start",
    "read_session",
]


@hookimpl
def load_session(path: Path) -> Iterable[Event] | None:
    """OpenTelemetry GenAI traces: OTLP JSON (lines) and exported span lists."""
    from .reader import OtelFile, detect

    return OtelFile(path, detect(Path(path)))


@hookimpl
def line_parser(path: Path) -> OtlpLineParser | None:
    """Follow an OTLP JSON lines file as it grows."""
    from .reader import OtlpLineParser, detect

    return OtlpLineParser(path) if detect(Path(path)) == "otlp-lines" else None


def read_session(path: str | Path) -> OtelFile:
    """The events of an OpenTelemetry GenAI trace file (see :mod:`monologue_otel.reader`)."""
    from .reader import read_session as read

    return read(path)
