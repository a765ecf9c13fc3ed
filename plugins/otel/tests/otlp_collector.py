"""A loopback OTLP/HTTP collector for the tests: it decodes each protobuf export request it
receives with the OpenTelemetry protocol's own message classes, and keeps the spans."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


class Collector:
    """What the collector received: every span, decoded."""

    def __init__(self, port: int) -> None:
        self.endpoint = f"http://127.0.0.1:{port}"
        self.paths: list[str] = []
        self.spans: list[Any] = []
        self._lock = threading.Lock()

    def receive(self, path: str, body: bytes) -> None:
        request = ExportTraceServiceRequest.FromString(body)
        with self._lock:
            self.paths.append(path)
            for resource in request.resource_spans:
                for scope in resource.scope_spans:
                    self.spans.extend(scope.spans)

    def span_events(self, name: str) -> list[tuple[Any, dict[str, Any]]]:
        """``(span, attributes)`` of every span event called ``name``."""
        with self._lock:
            return [
                (span, {kv.key: plain(kv.value) for kv in event.attributes})
                for span in self.spans
                for event in span.events
                if event.name == name
            ]


def plain(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [plain(item) for item in value.array_value.values]
    return getattr(value, kind) if kind else None


@contextmanager
def running_collector() -> Iterator[Collector]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    collector = Collector(server.server_address[1])
    server.collector = collector  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield collector
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        self.server.collector.receive(self.path, body)  # type: ignore[attr-defined]
        reply = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read what was received, not the access log."""
