"""Compact, redacted views of events for prompts and one-line displays.

A model narrator needs the gist of each event, not its bytes: the tool name, the salient
input (a path, a command, a pattern, a query, a URL), a truncated result, and whether it
failed. Everything here is redacted first (see :mod:`monologue.redact`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from .redact import redact

if TYPE_CHECKING:
    from .events import Event

SALIENT_KEYS = (
    "file_path",
    "path",
    "notebook_path",
    "command",
    "cmd",
    "pattern",
    "query",
    "url",
    "description",
    "prompt",
    "subagent_type",
    "glob",
    "name",
)


def truncate(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters, keeping head and tail, saying how much went."""
    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    head = max(limit * 2 // 3, 1)
    tail = max(limit - head - 1, 0)
    cut = len(text) - head - tail
    return f"{text[:head]}…[{cut} chars cut]…{text[len(text) - tail :] if tail else ''}"


def as_text(value: Any) -> str:
    """Tool output of any shape (str, content blocks, JSON) as plain text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for item in value:
            if isinstance(item, dict) and "text" in item:
                parts.append(str(item["text"]))
            elif isinstance(item, dict) and item.get("type") == "image":
                parts.append("[image]")
            else:
                parts.append(as_text(item))
        return "\n".join(parts)
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def salient_input(tool_input: dict[str, Any], limit: int = 200) -> str:
    """The part of a tool's input a person would name: a path, command, pattern, query..."""
    picked = {key: tool_input[key] for key in SALIENT_KEYS if tool_input.get(key)}
    if not picked:
        picked = {
            key: value
            for key, value in tool_input.items()
            if isinstance(value, str | int | float) and str(value).strip()
        }
        picked = dict(list(picked.items())[:2])
    if not picked:
        return ""
    clean = redact(picked)
    text = ", ".join(f"{key}={' '.join(str(value).split())}" for key, value in clean.items())
    return truncate(text, limit)


class EventDigest(BaseModel):
    """One event as a prompt sees it."""

    index: int
    type: str
    agent: str
    tool: str | None = None
    input: str = ""
    output: str = ""
    is_error: bool = False
    text: str = ""

    def line(self, narrated_agent: str | None = None) -> str:
        """The event as one prompt line ("called Bash: command=pytest -q")."""
        if self.type == "tool_call":
            return f"called {self.tool}" + (f": {self.input}" if self.input else "")
        if self.type == "tool_result":
            head = "ERROR from" if self.is_error else "result of"
            return f"{head} {self.tool or 'tool'}" + (f": {self.output}" if self.output else "")
        if self.type == "completion":
            head = "finished with an error" if self.is_error else "finished"
            return head + (f": {self.output}" if self.output else "")
        who = f" (from {self.agent})" if narrated_agent and self.agent != narrated_agent else ""
        return f"{self.type}{who}: {self.text}"


def digest_events(
    events: list[Event], *, input_limit: int = 200, output_limit: int = 400, text_limit: int = 600
) -> list[EventDigest]:
    """Digests of ``events`` (numbered from 1), results joined to their calls' tool names."""
    names: dict[str, str] = {}
    out: list[EventDigest] = []
    for number, event in enumerate(events, 1):
        data = event.data
        digest = EventDigest(index=number, type=event.type, agent=event.agent)
        if event.type == "tool_call":
            names[str(data.get("tool_use_id"))] = str(data.get("tool_name"))
            digest.tool = str(data.get("tool_name"))
            digest.input = salient_input(data.get("input") or {}, input_limit)
        elif event.type == "tool_result":
            digest.tool = data.get("tool_name") or names.get(str(data.get("tool_use_id")))
            digest.is_error = bool(data.get("is_error"))
            digest.output = truncate(redact(as_text(data.get("output"))).strip(), output_limit)
        elif event.type == "completion":
            digest.is_error = bool(data.get("is_error"))
            digest.output = truncate(redact(as_text(data.get("result"))).strip(), output_limit)
        elif event.type == "error":
            digest.is_error = True
            digest.text = truncate(redact(str(data.get("message", ""))), text_limit)
        else:
            raw = data.get("text", data.get("message", ""))
            digest.text = truncate(redact(as_text(raw)).strip(), text_limit)
        out.append(digest)
    return out
