"""A loopback server that speaks the Anthropic Messages API, for tests and benchmarks.

It lets the real ``anthropic`` SDK make real HTTP requests without leaving the machine:
bound to ``127.0.0.1`` on a free port, it answers ``POST /v1/messages`` as JSON, or as
server-sent events when the request says ``"stream": true``, and records every request
(headers and JSON body) so a test can read exactly what the SDK sent. Replies are scripted
per request (:meth:`LoopbackAPI.script`): status codes, headers such as ``retry-after``,
delays, malformed bodies, tool-use content. Unscripted requests get ``default_text``, or
whatever ``responder(request)`` returns.

``usage.input_tokens`` is a deterministic estimate, not a tokenizer: the characters of the
system prompt, of every text in the messages and of the tool definitions, divided by
:data:`CHARS_PER_TOKEN` (4, the usual rule of thumb for English prose and code) and rounded
up. Output tokens are estimated the same way from the reply.

Response bodies are built with the SDK's own pydantic types (``anthropic.types.Message``
and the ``Raw*Event`` stream events), so they have exactly the shapes the SDK parses.
"""

from __future__ import annotations

import json
import logging
import math
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

log = logging.getLogger("monologue.anthropic.loopback")

CHARS_PER_TOKEN = 4
DEFAULT_TEXT = "I'm reading through the project to get my bearings."
# Size of the text_delta / input_json_delta chunks a streamed reply is cut into.
STREAM_CHUNK = 12

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def estimate_tokens(text: str) -> int:
    """About one token per :data:`CHARS_PER_TOKEN` characters, rounded up."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _block_text(block: Any) -> str:
    """The text a content block carries (text, tool input, tool result content)."""
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind in ("tool_use", "server_tool_use"):
        return str(block.get("name", "")) + json.dumps(block.get("input", {}))
    if kind == "tool_result":
        return _block_text(block.get("content", ""))
    if kind == "thinking":
        return str(block.get("thinking", ""))
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(_block_text(block) for block in content)
    return _block_text(content)


def request_text(body: dict[str, Any]) -> str:
    """Every character of a Messages API request the input-token estimate counts."""
    parts = [_content_text(body.get("system", ""))]
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            parts.append(_content_text(message.get("content", "")))
    if body.get("tools"):
        parts.append(json.dumps(body["tools"]))
    return "".join(parts)


class RecordedRequest(BaseModel):
    """One request the server received."""

    number: int
    """1-based, in order of arrival."""
    method: str
    path: str
    headers: dict[str, str]
    """Header names lower-cased."""
    peer: str
    """The client's ``host:port``: requests on one pooled connection share it."""
    raw: bytes
    body: dict[str, Any] | None
    """The JSON body, ``None`` when it was not a JSON object."""
    input_tokens: int = 0
    """The estimate the reply reported as ``usage.input_tokens``."""
    at: float = Field(default_factory=time.monotonic)

    @property
    def model(self) -> str | None:
        return None if self.body is None else self.body.get("model")

    @property
    def system(self) -> str:
        """The system prompt as text (blocks joined)."""
        return "" if self.body is None else _content_text(self.body.get("system", ""))

    @property
    def user_text(self) -> str:
        """The text of the last message (the narrator sends one user message)."""
        messages = (self.body or {}).get("messages") or [{}]
        return _content_text(messages[-1].get("content", ""))


class Reply(BaseModel):
    """How the server answers one request. Build one with the class methods."""

    model_config = ConfigDict(frozen=True)

    status: int = 200
    text: str | None = None
    """Reply text; ``None`` means the server's default text."""
    content: list[dict[str, Any]] | None = None
    """Content blocks (``text``, ``tool_use``, ``thinking``); overrides ``text``."""
    headers: dict[str, str] = Field(default_factory=dict)
    delay_s: float = 0.0
    """Wait this long before answering (the server's stop interrupts the wait)."""
    raw_body: bytes | None = None
    """Sent as is, whatever was asked: for malformed responses."""
    content_type: str = "application/json"
    error_type: str | None = None
    error_message: str | None = None
    model: str | None = None
    """The model id reported back; defaults to the requested one."""
    stop_reason: str | None = None

    @classmethod
    def ok(cls, text: str, **fields: Any) -> Reply:
        return cls(text=text, **fields)

    @classmethod
    def blocks(cls, *content: dict[str, Any], **fields: Any) -> Reply:
        """A reply made of content blocks, e.g. a ``tool_use`` for an agent loop."""
        return cls(content=list(content), **fields)

    @classmethod
    def error(
        cls,
        status: int,
        message: str | None = None,
        *,
        error_type: str | None = None,
        retry_after: float | None = None,
        **fields: Any,
    ) -> Reply:
        headers = dict(fields.pop("headers", {}))
        if retry_after is not None:
            headers["retry-after"] = f"{retry_after:g}"
        return cls(
            status=status,
            error_type=error_type or _ERROR_TYPES.get(status, "api_error"),
            error_message=message or f"loopback error {status}",
            headers=headers,
            **fields,
        )

    @classmethod
    def rate_limited(cls, retry_after: float | None = None) -> Reply:
        return cls.error(
            429, "Number of requests has exceeded your rate limit", retry_after=retry_after
        )

    @classmethod
    def overloaded(cls) -> Reply:
        return cls.error(529, "Overloaded")

    @classmethod
    def server_error(cls) -> Reply:
        return cls.error(500, "Internal server error")

    @classmethod
    def malformed(cls, body: bytes = b'{"id": "msg_01", "content": [', status: int = 200) -> Reply:
        return cls(status=status, raw_body=body)

    @classmethod
    def slow(cls, delay_s: float, text: str | None = None) -> Reply:
        return cls(delay_s=delay_s, text=text)


Responder = Callable[[RecordedRequest], Reply | None]


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
            self._answer(handler, request, reply)
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
                    "output_tokens": estimate_tokens(_content_text(content)),
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                },
            }
        )


def stream_events(message: Any) -> Iterator[tuple[str, str]]:
    """``(event name, data JSON)`` pairs streaming ``message`` as the API does.

    ``message_start`` (empty content), then per block ``content_block_start``, deltas cut
    into :data:`STREAM_CHUNK`-character pieces (``text_delta``, ``thinking_delta``,
    ``input_json_delta``), ``content_block_stop``; a ``ping`` after the first block starts;
    ``message_delta`` with the stop reason and output tokens; ``message_stop``.
    """
    from anthropic.types import (
        RawContentBlockDeltaEvent,
        RawContentBlockStartEvent,
        RawContentBlockStopEvent,
        RawMessageDeltaEvent,
        RawMessageStartEvent,
        RawMessageStopEvent,
    )

    def chunks(text: str) -> list[str]:
        return [text[i : i + STREAM_CHUNK] for i in range(0, len(text), STREAM_CHUNK)] or [""]

    start = message.model_dump(exclude_unset=True)
    start.update(content=[], stop_reason=None)
    start["usage"] = {**start["usage"], "output_tokens": 1}
    events: list[Any] = [RawMessageStartEvent(type="message_start", message=start)]
    for index, block in enumerate(message.content):
        kind = block.type
        if kind == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": part} for part in chunks(block.text)]
        elif kind == "thinking":
            opening = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [
                {"type": "thinking_delta", "thinking": part} for part in chunks(block.thinking)
            ]
            deltas.append({"type": "signature_delta", "signature": block.signature or "sig"})
        elif kind == "tool_use":
            opening = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
            deltas = [
                {"type": "input_json_delta", "partial_json": part}
                for part in ["", *chunks(json.dumps(block.input))]
            ]
        else:
            continue
        events.append(
            RawContentBlockStartEvent.model_validate(
                {"type": "content_block_start", "index": index, "content_block": opening}
            )
        )
        events += [
            RawContentBlockDeltaEvent.model_validate(
                {"type": "content_block_delta", "index": index, "delta": delta}
            )
            for delta in deltas
        ]
        events.append(RawContentBlockStopEvent(type="content_block_stop", index=index))
    events.insert(2 if len(events) > 1 else 1, {"type": "ping"})
    events.append(
        RawMessageDeltaEvent.model_validate(
            {
                "type": "message_delta",
                "delta": {"stop_reason": message.stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": message.usage.output_tokens},
            }
        )
    )
    events.append(RawMessageStopEvent(type="message_stop"))
    for event in events:
        if isinstance(event, dict):
            yield event["type"], json.dumps(event)
        else:
            yield event.type, event.model_dump_json(exclude_unset=True)


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
