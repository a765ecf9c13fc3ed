"""What the loopback server records of a request, and how it is told to answer.

``usage.input_tokens`` is a deterministic estimate, not a tokenizer: the characters of the
system prompt, of every text in the messages and of the tool definitions, divided by
:data:`CHARS_PER_TOKEN` (4, the usual rule of thumb for English prose and code) and rounded
up. Output tokens are estimated the same way from the reply.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CHARS_PER_TOKEN",
    "RecordedRequest",
    "Reply",
    "Responder",
    "content_text",
    "estimate_tokens",
    "request_text",
]

CHARS_PER_TOKEN = 4

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


def content_text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(_block_text(block) for block in content)
    return _block_text(content)


def request_text(body: dict[str, Any]) -> str:
    """Every character of a Messages API request the input-token estimate counts."""
    parts = [content_text(body.get("system", ""))]
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            parts.append(content_text(message.get("content", "")))
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
        return "" if self.body is None else content_text(self.body.get("system", ""))

    @property
    def user_text(self) -> str:
        """The text of the last message (the narrator sends one user message)."""
        messages = (self.body or {}).get("messages") or [{}]
        return content_text(messages[-1].get("content", ""))


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
    behaviour: Literal["answer", "hang", "hang_after_headers", "trickle", "garbage", "close"] = (
        "answer"
    )
    """``answer`` as above; the others are the faults the class methods of the same names
    describe."""
    interval_s: float = 0.5
    """For ``trickle``: the pause between two bytes."""

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

    @classmethod
    def hang(cls, *, after_headers: bool = False) -> Reply:
        """Never answer: no byte at all, or (``after_headers``) a 200 status line and headers
        announcing a body that never comes. Ends when the client hangs up or the server
        stops."""
        return cls(behaviour="hang_after_headers" if after_headers else "hang")

    @classmethod
    def trickle(cls, interval_s: float = 0.5) -> Reply:
        """Headers announcing a large JSON body, then one byte of it every ``interval_s``:
        each read succeeds, so a per-read timeout never fires."""
        return cls(behaviour="trickle", interval_s=interval_s)

    @classmethod
    def garbage(cls) -> Reply:
        """Bytes that are not HTTP at all, then the connection closes."""
        return cls(behaviour="garbage")

    @classmethod
    def close(cls) -> Reply:
        """Close the connection without a byte of answer."""
        return cls(behaviour="close")


Responder = Callable[[RecordedRequest], Reply | None]
