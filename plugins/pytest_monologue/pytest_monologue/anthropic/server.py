"""A loopback server that speaks the Anthropic Messages API, for tests and benchmarks.

It lets the real ``anthropic`` SDK make real HTTP requests without leaving the machine:
bound to ``127.0.0.1`` on a free port, it answers ``POST /v1/messages`` as JSON, or as
server-sent events when the request says ``"stream": true``, and records every request
(headers and JSON body) so a test can read exactly what the SDK sent. Replies are scripted
per request (:meth:`LoopbackAPI.script`): status codes, headers such as ``retry-after``,
delays, malformed bodies, tool-use content, and faults (a reply that hangs, trickles one
byte at a time, is not HTTP, or is a hang-up). Unscripted requests get ``default_text``, or
whatever ``responder(request)`` returns.

Response bodies are built with the SDK's own pydantic types (``anthropic.types.Message``
and the ``Raw*Event`` stream events), so they have exactly the shapes the SDK parses.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from .faults import misbehave
from .replies import RecordedRequest, Reply, Responder, content_text, estimate_tokens, request_text
from .streaming import stream_events

__all__ = ["DEFAULT_TEXT", "LoopbackAPI", "refused_base_url"]

log = logging.getLogger("monologue.anthropic.loopback")

DEFAULT_TEXT = "I'm reading through the project to get my bearings."

DUMMY_API_KEY = "loopback-test-key"
"""The API key the fixtures set: the server accepts any."""


class LoopbackAPI:
    """The server. Use it as a context manager, or call :meth:`start` and :meth:`stop`."""

    def __init__(
        self, *, default_text: str = DEFAULT_TEXT, responder: Responder | None = None
    ) -> None:
        self.default_text = default_text
        self.responder = responder
        self._script: deque[Reply] = deque()
        self._requests: list[RecordedRequest] = []
        self._cond = threading.Condition()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._ids = 0

    # -- lifecycle ----------------------------------------------------------------------

    def start(self) -> LoopbackAPI:
        if self._server is None:
            self._server = _Server(self)
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                kwargs={"poll_interval": 0.05},
                name=f"loopback-anthropic-{self.port}",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> LoopbackAPI:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the loopback server is not running")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """What to give the SDK as ``base_url`` / ``ANTHROPIC_BASE_URL``."""
        return f"http://127.0.0.1:{self.port}"

    # -- scripting and inspection -------------------------------------------------------

    def script(self, *replies: Reply) -> LoopbackAPI:
        """Queue replies for the next requests, in order; then the default answers again."""
        with self._cond:
            self._script.extend(replies)
        return self

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._cond:
            return list(self._requests)

    @property
    def pending_replies(self) -> int:
        with self._cond:
            return len(self._script)

    def wait_for_requests(self, count: int, timeout: float = 10.0) -> bool:
        """Block until ``count`` requests arrived (``False`` after ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self._requests) < count:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
        return True

    # -- serving ------------------------------------------------------------------------

    def _next_id(self, prefix: str) -> str:
        with self._cond:
            self._ids += 1
            return f"{prefix}_loopback{self._ids:06d}"

    def handle(self, handler: _Handler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            decoded = json.loads(raw) if raw else None
        except (UnicodeDecodeError, json.JSONDecodeError):
            decoded = None
        body = decoded if isinstance(decoded, dict) else None
        served = handler.path.split("?")[0] == "/v1/messages" and handler.command == "POST"
        with self._cond:
            number = len(self._requests) + 1
            wanted = served and body is not None
            scripted = self._script.popleft() if self._script and wanted else None
        request = RecordedRequest(
            number=number,
            method=handler.command,
            path=handler.path,
            headers={key.lower(): value for key, value in handler.headers.items()},
            peer="{}:{}".format(*handler.client_address[:2]),
            raw=raw,
            body=body,
            input_tokens=estimate_tokens(request_text(body)) if body else 0,
        )
        with self._cond:
            self._requests.append(request)
            self._cond.notify_all()
        reply = scripted or (self.responder(request) if self.responder else None) or Reply()
        if not served:
            reply = Reply.error(404, f"loopback serves POST /v1/messages, not {handler.path}")
        elif body is None and reply.raw_body is None and reply.status < 400:
            reply = Reply.error(400, "the request body is not a JSON object")
        if reply.delay_s and self._stopping.wait(reply.delay_s):
            handler.close_connection = True  # the server is stopping: hang up, no answer
            return
        try:
            if reply.behaviour == "answer":
                self._answer(handler, request, reply)
            else:
                misbehave(handler, reply, self._stopping)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (its timeout) before the answer: that is the point of a
            # slow reply, not a server problem.
            log.debug("loopback: client went away before reply %d", number)

    def _answer(self, handler: _Handler, request: RecordedRequest, reply: Reply) -> None:
        if reply.raw_body is not None:
            handler.send_body(reply.status, reply.raw_body, reply.content_type, reply.headers)
            return
        if reply.status >= 400:
            payload = {
                "type": "error",
                "error": {"type": reply.error_type, "message": reply.error_message},
            }
            body = json.dumps(payload).encode()
            handler.send_body(reply.status, body, "application/json", reply.headers)
            return
        message = self._message(request, reply)
        if (request.body or {}).get("stream"):
            handler.send_events(reply.status, stream_events(message), reply.headers)
        else:
            body = message.model_dump_json(exclude_unset=True).encode()
            handler.send_body(reply.status, body, "application/json", reply.headers)

    def _message(self, request: RecordedRequest, reply: Reply) -> Any:
        from anthropic.types import Message

        content = reply.content
        if content is None:
            content = [
                {"type": "text", "text": self.default_text if reply.text is None else reply.text}
            ]
        content = [
            {**block, "id": block.get("id") or self._next_id("toolu")}
            if block.get("type") == "tool_use"
            else block
            for block in content
        ]
        stop_reason = reply.stop_reason or (
            "tool_use" if any(block.get("type") == "tool_use" for block in content) else "end_turn"
        )
        return Message.model_validate(
            {
                "id": self._next_id("msg"),
                "type": "message",
                "role": "assistant",
                "model": reply.model or request.model or "claude-loopback",
                "content": content,
                "stop_reason": stop_reason,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": request.input_tokens,
                    "output_tokens": estimate_tokens(content_text(content)),
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                },
            }
        )


def refused_base_url() -> str:
    """A loopback URL nothing listens on: a server was bound there, then shut down."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, api: LoopbackAPI) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.api = api


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def do_POST(self) -> None:
        self.server.api.handle(self)

    do_GET = do_PUT = do_DELETE = do_POST

    def send_body(
        self, status: int, body: bytes, content_type: str, headers: dict[str, str]
    ) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.send_header("request-id", f"req_loopback_{id(self):x}")
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def send_events(
        self, status: int, events: Iterator[tuple[str, str]], headers: dict[str, str]
    ) -> None:
        self.send_response(status)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        # No length is known up front: the end of the stream is the end of the connection.
        self.send_header("connection", "close")
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.close_connection = True
        for name, data in events:
            self.wfile.write(f"event: {name}\ndata: {data}\n\n".encode())
            self.wfile.flush()

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("loopback: " + format, *args)
