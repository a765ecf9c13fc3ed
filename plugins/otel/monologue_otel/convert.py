"""GenAI spans to monologue events.

Spans are read in the order they started, and their events ordered by time:

- ``invoke_agent``: a top-level agent span ends the run with a ``completion`` (its output,
  failed when the span's status is an error);
- ``chat`` / ``call_llm`` / ``text_completion`` / ``generate_content``: the first user message
  of the input (``user_message``, once), then at the span's end what the model said
  (``text``) and the tools it asked for (``tool_call``); a failed model call is an ``error``;
- ``execute_tool``: the ``tool_result`` of the call it runs. The call is found by
  ``gen_ai.tool.call.id`` when the trace has ids; without ids (as the OpenAI Agents SDK and
  any-agent export them), it is the oldest call to a tool of that name the model asked for
  and no execution has answered yet. An execution nobody asked for gets its own
  ``tool_call``.

A span read twice (an exporter's retry, two files of one trace) counts once: spans are
known by their ids. An execution whose call id the model span did not give (it asked
without ids) answers the oldest unanswered request of that tool, so that one call is one
call and its result, never a second call beside a first one left running.

Narrators get plain text: a tool's JSON output is decoded (``output`` is then a dict or a
list), and a model's structured answer is told as its text, the object itself kept in
``structured``.

Events keep the spans' ids (``trace_id``, ``span_id``); a call asked for without an id gets
``<span id>-<n>``, the model span's id and the request's position.
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from datetime import UTC, datetime
from typing import Any

from monologue.events import Event
from monologue.origins import prompt_data

from .spans import Span

__all__ = ["SpanConverter"]

MODEL_OPERATIONS = frozenset({"chat", "call_llm", "text_completion", "generate_content"})
AGENT_OPERATIONS = frozenset({"invoke_agent"})

Made = tuple[int, str, dict[str, Any]]
"""An event to make: when (ns since the epoch), its type and data."""


class SpanConverter:
    """Follows the spans of one trace file: the calls asked for and not yet run."""

    def __init__(self) -> None:
        self._waiting: defaultdict[str, deque[str]] = defaultdict(deque)
        self._asked: set[str] = set()
        self._unnamed: set[str] = set()
        """Ids made up for requests the model span gave none for."""
        self._seen: set[tuple[str, str]] = set()
        self._told_task = False

    def convert(self, spans: list[Span]) -> list[Event]:
        timed: list[tuple[int, int, Event]] = []
        fresh = []
        for span in spans:
            if (span.trace_id, span.span_id) not in self._seen:
                self._seen.add((span.trace_id, span.span_id))
                fresh.append(span)
        for span in sorted(fresh, key=lambda span: span.start_ns):
            operation = span.operation
            if operation in MODEL_OPERATIONS:
                made = self._model(span)
            elif operation == "execute_tool":
                made = self._tool(span)
            elif operation in AGENT_OPERATIONS and not span.parent_id:
                made = [(span.end_ns, "completion", _completion(span))]
            else:
                made = []
            timed += [
                (ns, len(timed) + n, _event(kind, data, span, ns))
                for n, (ns, kind, data) in enumerate(made)
            ]
        return [event for _, _, event in sorted(timed, key=lambda item: item[:2])]

    def _model(self, span: Span) -> list[Made]:
        made: list[Made] = []
        task = None if self._told_task else _last_user_text(span.attributes)
        if task:
            self._told_task = True
            made.append((span.start_ns, "user_message", prompt_data(task)))
        if span.failed:
            message = span.status_message or f"the model call {span.name!r} failed"
            made.append((span.end_ns, "error", {"message": message}))
            return made
        text, requests = _model_output(span.attributes)
        if text:
            made.append((span.end_ns, "text", _said(text)))
        for number, (name, given_id, args) in enumerate(requests, 1):
            call_id = given_id or f"{span.span_id}-{number}"
            if not given_id:
                self._unnamed.add(call_id)
            self._waiting[name].append(call_id)
            self._asked.add(call_id)
            data = {"tool_name": name, "tool_use_id": call_id, "input": args}
            made.append((span.end_ns, "tool_call", data))
        return made

    def _tool(self, span: Span) -> list[Made]:
        attrs = span.attributes
        name = str(attrs.get("gen_ai.tool.name") or span.name.removeprefix("execute_tool ").strip())
        call_id = attrs.get("gen_ai.tool.call.id")
        made: list[Made] = []
        unnamed = next((c for c in self._waiting[name] if c in self._unnamed), None)
        if isinstance(call_id, str) and call_id in self._asked:
            self._waiting[name] = deque(c for c in self._waiting[name] if c != call_id)
        elif not call_id and self._waiting[name]:
            call_id = self._waiting[name].popleft()
        elif unnamed is not None:
            # The model span asked without ids, the execution has one: the same call.
            call_id = unnamed
            self._waiting[name].remove(unnamed)
        else:
            call_id = str(call_id or span.span_id)
            args = _json_object(
                attrs.get("gen_ai.tool.args", attrs.get("gen_ai.tool.call.arguments"))
            )
            data = {"tool_name": name, "tool_use_id": call_id, "input": args}
            made.append((span.start_ns, "tool_call", data))
        self._asked.discard(call_id)
        self._unnamed.discard(call_id)
        output = attrs.get("gen_ai.output", attrs.get("gen_ai.tool.call.result", ""))
        if span.failed and span.status_message:
            output = span.status_message
        decoded = _decoded(output)
        result = {
            "tool_use_id": call_id,
            "tool_name": name,
            "output": decoded if isinstance(decoded, dict | list | str) else json.dumps(output),
            "is_error": span.failed,
        }
        made.append((span.end_ns, "tool_result", result))
        return made


def _event(kind: str, data: dict[str, Any], span: Span, ns: int) -> Event:
    ids = {"trace_id": span.trace_id, "span_id": span.span_id}
    return Event(type=kind, data={**data, **ids}, ts=datetime.fromtimestamp(ns / 1e9, UTC))


def _completion(span: Span) -> dict[str, Any]:
    output = span.attributes.get("gen_ai.output")
    said = _said(output) if output not in (None, "") else {"text": None}
    data = {
        "result": said["text"],
        "is_error": span.failed,
        "ending": "failed" if span.failed else "completed",
        "agent_name": span.attributes.get("gen_ai.agent.name"),
    }
    return {**data, **({"structured": said["structured"]} if "structured" in said else {})}


def _said(value: Any) -> dict[str, Any]:
    """What a model said, as text: a structured (JSON) answer in plain words, the object
    kept in ``structured``."""
    decoded = _decoded(value)
    if isinstance(decoded, dict | list):
        return {"text": plain(decoded), "structured": decoded}
    return {"text": value if isinstance(value, str) else json.dumps(value)}


_ANSWER_KEYS = ("final_answer", "answer", "result", "summary", "message", "text", "content")
_ITEM_KEYS = ("description", "title", "name", "text", "content", "summary")


def plain(value: Any) -> str:
    """A JSON value in plain words: an answer field when it has one, else its items and
    fields, without braces, quotes or key syntax."""
    if isinstance(value, dict):
        for key in _ANSWER_KEYS:
            if isinstance(value.get(key), str) and value[key].strip():
                return str(value[key])
        for key in _ITEM_KEYS:
            if isinstance(value.get(key), str) and value[key].strip() and len(value) <= 3:
                return str(value[key])
        return "; ".join(f"{str(k).replace('_', ' ')}: {plain(v)}" for k, v in value.items())
    if isinstance(value, list):
        return " ".join(
            f"{n}. {plain(item).rstrip('.')}." if len(value) > 1 else plain(item)
            for n, item in enumerate(value, 1)
        )
    return "" if value is None else str(value)


def _decoded(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _json_object(value: Any) -> dict[str, Any]:
    found = _decoded(value)
    if isinstance(found, dict):
        return found
    return {} if found in (None, "") else {"arguments": found}


def _last_user_text(attrs: dict[str, Any]) -> str | None:
    messages = _decoded(attrs.get("gen_ai.input.messages"))
    if not isinstance(messages, list):
        return None
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return _message_text(message) or None
    return None


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = message.get("parts") or content or []
    return "".join(
        str(part.get("content", part.get("text", "")))
        for part in parts
        if isinstance(part, dict) and part.get("type") in ("text", None)
    )


Request = tuple[str, str | None, dict[str, Any]]


def _model_output(attrs: dict[str, Any]) -> tuple[str, list[Request]]:
    """What a model span said and the tools it asked for, from the semantic conventions'
    ``gen_ai.output.messages`` (parts with ids) or any-agent's ``gen_ai.output``."""
    messages = _decoded(attrs.get("gen_ai.output.messages"))
    if isinstance(messages, list):
        text, requests = "", []
        for message in messages:
            for part in (message.get("parts") or []) if isinstance(message, dict) else []:
                if part.get("type") == "tool_call":
                    args = _json_object(part.get("arguments"))
                    requests.append((str(part.get("name")), part.get("id"), args))
                elif part.get("type") == "text":
                    text += str(part.get("content", ""))
        return text, requests
    output = attrs.get("gen_ai.output")
    decoded = _decoded(output)
    if (
        isinstance(decoded, list)
        and decoded
        and all(isinstance(item, dict) and "tool.name" in item for item in decoded)
    ):
        return "", [
            (str(item["tool.name"]), None, _json_object(item.get("tool.args"))) for item in decoded
        ]
    return (output if isinstance(output, str) else json.dumps(output) if output else ""), []
