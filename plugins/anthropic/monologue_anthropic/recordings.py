"""Reading recorded Anthropic traffic as monologue events (the ``load_session`` hook).

Two shapes are recognised from their first bytes:

- a Messages API server-sent-event stream (``event: message_start`` / ``data: {...}``
  blocks, one or several messages in a row), as ``curl -N`` or a proxy saves it;
- an HTTP cassette: a JSON array of ``{"request": {..., "body": {...}}, "response":
  {"status_code", "headers", "body"}}`` exchanges with ``/v1/messages`` requests, whose
  response body is an SSE string or a JSON message.

A cassette of an agent host's traffic (Claude Code's, logged by a proxy) holds side requests
beside the conversation: quota probes (``max_tokens: 1``), topic and title detection,
command-prefix checks, marked ``isMainRequest: false`` by loggers that know. They are left
out, responses included: only the main conversation is told, and it ends with a
``completion`` whose ``ending`` comes from how its last response stopped. Its user side is
read as the messages a request adds to the previous main request's (compared without the moving
``cache_control`` marks), so a side request between two main ones never hides nor repeats
the user's words; each user text says its origin (see :mod:`monologue.origins`).

Events are produced lazily. A problem raises :class:`~monologue.errors.RecordingError`
naming the file and line (the exchange, for cassettes) after the events before it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from monologue.errors import RecordingError
from monologue.events import Event, describe_validation_error

from .adapter import block_events, content_events
from .sse import ServerSentEvent, parse_sse
from .stream import STREAM_EVENT_TYPES, StreamAssembler, StreamProblem

SNIFF_BYTES = 4096


def sniff(path: Path) -> str | None:
    """``"sse"``, ``"cassette"`` or ``None``, from the file's first bytes only."""
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError:
        return None
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if text.startswith(("event:", "data:")) and "message_start" in text:
        return "sse"
    if text.startswith("[") and '"request"' in text and "/v1/messages" in text:
        return "cassette"
    return None


def load(path: Path) -> Iterable[Event] | None:
    kind = sniff(path)
    if kind == "sse":
        return read_sse(path)
    if kind == "cassette":
        return read_cassette(path)
    return None


class _Names:
    """Tool names by ``tool_use_id``, learnt from the tool calls read so far."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def __call__(self, tool_use_id: str) -> str | None:
        return self._names.get(tool_use_id)

    def learn(self, events: list[Event]) -> list[Event]:
        for event in events:
            if event.type == "tool_call":
                self._names[event.data["tool_use_id"]] = event.data["tool_name"]
        return events


def _lines(path: Path) -> Iterator[str]:
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise RecordingError(path, number, f"not UTF-8 text ({exc.reason})") from None


def read_sse(path: Path) -> Iterator[Event]:
    """Events of a file of Messages API server-sent events."""
    yield from _stream(parse_sse(_lines(path)), path, _Names())


def _stream(sse_events: Iterable[ServerSentEvent], path: Path, names: _Names) -> Iterator[Event]:
    assembler = StreamAssembler()
    line = 0
    for sse in sse_events:
        line = sse.line
        try:
            payload = json.loads(sse.data)
        except json.JSONDecodeError as exc:
            raise RecordingError(
                path, line, f"data of event {sse.name!r} is not valid JSON: {exc.msg}"
            ) from None
        if not isinstance(payload, dict):
            raise RecordingError(path, line, f"data of event {sse.name!r} is not a JSON object")
        kind = payload.get("type", sse.name)
        if kind == "error":
            error = payload.get("error") or {}
            yield Event(
                type="error",
                data={
                    "message": str(error.get("message") or "error event in the stream"),
                    "error_type": error.get("type"),
                },
            )
            continue
        if kind not in STREAM_EVENT_TYPES:
            continue  # event types newer than this reader carry nothing it can narrate
        try:
            blocks = assembler.feed(payload)
        except StreamProblem as exc:
            raise RecordingError(path, line, str(exc)) from None
        for block in blocks:
            yield from names.learn(block_events(block, "assistant", names))
    if assembler.open_blocks:
        still_open = ", ".join(f"{i} ({kind})" for i, kind in assembler.open_blocks.items())
        raise RecordingError(
            path, line, f"the stream ends inside content block {still_open}: it was cut short"
        )


class _CassetteRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    body: dict[str, Any] = Field(default_factory=dict)


class _CassetteResponse(BaseModel):
    model_config = ConfigDict(extra="allow")

    status_code: int = 200
    body: str | dict[str, Any] | None = None


class _Exchange(BaseModel):
    model_config = ConfigDict(extra="allow")

    request: _CassetteRequest
    response: _CassetteResponse


def read_cassette(path: Path) -> Iterator[Event]:
    """Events of a JSON cassette of ``/v1/messages`` exchanges: the user side of each
    request (tool results, user text) that the previous ones did not already hold, then
    the response."""
    try:
        exchanges = json.loads(path.read_bytes())
    except UnicodeDecodeError as exc:
        raise RecordingError(path, None, f"not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise RecordingError(path, exc.lineno, f"not valid JSON: {exc.msg}") from None
    names = _Names()
    conversation: list[Any] = []
    last: _CassetteResponse | None = None
    for number, raw in enumerate(exchanges, 1):
        try:
            exchange = _Exchange.model_validate(raw)
        except ValidationError as exc:
            _, problem = describe_validation_error(exc)
            raise RecordingError(path, None, f"exchange {number}: {problem}") from None
        if is_side_request(raw, exchange.request.body):
            continue
        messages = [_unmarked(message) for message in exchange.request.body.get("messages") or []]
        known = _common_prefix(conversation, messages)
        for message in messages[known:]:
            # Assistant turns in a request repeat earlier responses, already read.
            if isinstance(message, dict) and message.get("role") == "user":
                yield from content_events(message.get("content"), "user", names)
        conversation = messages
        yield from _response_events(exchange.response, path, number, names)
        last = exchange.response
    if last is not None:
        yield Event(type="completion", data={"result": None, "is_error": False, **_ending(last)})


_STOP_REASON = re.compile(r'"stop_reason"\s*:\s*"(\w+)"')
# How the last response stopped says how the conversation ended.
_ENDINGS = {"end_turn": "completed", "stop_sequence": "completed", "refusal": "failed"}


def _ending(response: _CassetteResponse) -> dict[str, Any]:
    """The ``ending`` of a conversation whose last main response is ``response``: a turn
    the model ended is ``completed``, an HTTP error ``failed``, a response waiting for tool
    results (or cut by ``max_tokens``) ``cut_off``."""
    if response.status_code >= 400:
        return {"ending": "failed", "is_error": True}
    body = response.body
    if isinstance(body, dict):
        reason = body.get("stop_reason")
    else:
        found = _STOP_REASON.findall(body or "")
        reason = found[-1] if found else None
    return {"ending": _ENDINGS.get(str(reason), "cut_off")}


# System prompts of Claude Code's side requests (topic, title, command checks).
_SIDE_PROMPTS = (
    "new conversation topic",
    "Summarize this coding conversation",
    "word title",
    "command prefix",
    "Extract any file paths that this command",
)


def is_side_request(exchange: Any, body: dict[str, Any]) -> bool:
    """A request an agent's host makes beside the conversation: marked not main by the
    logger, a ``max_tokens: 1`` quota probe, or one of Claude Code's helper prompts."""
    request = exchange.get("request") if isinstance(exchange, dict) else None
    marks = [exchange, request, body, body.get("metadata")]
    if isinstance(exchange, dict):
        marks.append(exchange.get("metadata"))
    if any(isinstance(mark, dict) and mark.get("isMainRequest") is False for mark in marks):
        return True
    if body.get("max_tokens") == 1:
        return True
    system = body.get("system")
    text = system if isinstance(system, str) else json.dumps(system or "")
    return not body.get("tools") and any(marker in text for marker in _SIDE_PROMPTS)


def _unmarked(value: Any) -> Any:
    """A message without its ``cache_control`` marks, which move from request to request
    (a text content marked becomes a list of blocks: read as one)."""
    if isinstance(value, dict) and isinstance(value.get("content"), str) and "role" in value:
        value = {**value, "content": [{"type": "text", "text": value["content"]}]}
    if isinstance(value, dict):
        return {k: _unmarked(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_unmarked(item) for item in value]
    return value


def _common_prefix(before: list[Any], now: list[Any]) -> int:
    count = 0
    for old, new in zip(before, now, strict=False):
        if old != new:
            break
        count += 1
    return count


def _response_events(
    response: _CassetteResponse, path: Path, number: int, names: _Names
) -> Iterator[Event]:
    body = response.body
    if response.status_code >= 400:
        error = body.get("error") if isinstance(body, dict) else None
        error = error if isinstance(error, dict) else {}
        yield Event(
            type="error",
            data={
                "message": f"HTTP {response.status_code}: {error.get('message') or body}",
                "error_type": error.get("type"),
            },
        )
    elif isinstance(body, dict):
        yield from names.learn(content_events(body.get("content"), "assistant", names))
    elif isinstance(body, str):
        try:
            yield from _stream(parse_sse(body.splitlines()), path, names)
        except RecordingError as exc:
            raise RecordingError(
                path,
                None,
                f"exchange {number}, line {exc.line} of the response body: {exc.problem}",
            ) from None
