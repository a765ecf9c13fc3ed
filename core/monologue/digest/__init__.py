"""Compact, redacted views of events for prompts and one-line displays.

A model narrator needs the gist of each event, not its bytes: the tool name, the salient
input (a path, a command, a pattern, a query, a URL), a truncated result, and whether it
failed. Everything here is redacted first (see :mod:`monologue.redact`).

What a batch's results show is precomputed too (:func:`outcome_facts`), so that no narrator
has to infer an outcome: a command sent to the background has only started, a call without
its result is still running, calls cancelled because a parallel sibling failed are one
consequence of that failure, a call the user declined did not run.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from monologue.redact import redact

if TYPE_CHECKING:
    from collections.abc import Iterable

    from monologue.events import Event

__all__ = [
    "COMMAND_KEYS",
    "PATH_KEYS",
    "SALIENT_KEYS",
    "EventDigest",
    "as_text",
    "digest_events",
    "folded_digest",
    "is_backgrounded",
    "is_cancelled",
    "is_declined",
    "is_interruption",
    "outcome_facts",
    "salient_input",
    "truncate",
]

_BACKGROUND = re.compile(
    r"^\s*(?:Command running in background with ID:|Async agent launched)", re.IGNORECASE
)
_JOB_RUNNING = re.compile(r"<status>\s*running\s*</status>")
_CANCELLED = "Sibling tool call errored"
_DECLINED = (
    "The user doesn't want to proceed with this tool use",
    "[Request interrupted by user for tool use]",
)
_INTERRUPTED = "[Request interrupted by user"
_PIPED = re.compile(r"(?<![|])\|(?![|])")
_JOB_TOOLS = frozenset({"TaskOutput", "BashOutput", "AgentOutputTool"})

PATH_KEYS = ("file_path", "path", "notebook_path")
"""Tool input keys that name the file a call is about."""
COMMAND_KEYS = ("command", "cmd")
"""Tool input keys that hold the command a call runs."""
SALIENT_KEYS = (
    *PATH_KEYS,
    *COMMAND_KEYS,
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


def is_backgrounded(tool_input: dict[str, Any], output: str | None) -> bool:
    """A command or sub-agent sent to the background (Claude Code's ``run_in_background``,
    or a result saying so): its result says it started, not how it went."""
    if tool_input.get("run_in_background"):
        return True
    return output is not None and bool(_BACKGROUND.match(output))


def is_cancelled(output: str, is_error: bool) -> bool:
    """A call cancelled because a sibling called in parallel failed: not a failure of its own."""
    return is_error and _CANCELLED in output


def is_declined(output: str, is_error: bool) -> bool:
    """A call the user refused to let run."""
    return is_error and output.lstrip().startswith(_DECLINED)


def is_interruption(text: str) -> bool:
    """A user message that is Claude Code's note of the user interrupting the agent."""
    return text.lstrip().startswith(_INTERRUPTED)


def outcome_facts(events: list[Event], limit: int = 12) -> list[str]:
    """What the results in ``events`` show and do not show, one plain sentence each, for a
    narrator that must state no outcome the events do not show (at most ``limit``)."""
    calls: dict[str, Event] = {}
    answered: set[str] = set()
    facts: list[str] = []
    cancelled: list[str] = []
    failed: list[str] = []
    for event in events:
        data = event.data
        if event.type == "tool_call":
            calls[str(data.get("tool_use_id"))] = event
        elif event.type == "tool_result":
            use_id = str(data.get("tool_use_id"))
            answered.add(use_id)
            call = calls.get(use_id)
            tool_input = (call.data.get("input") if call else None) or {}
            tool = data.get("tool_name") or (call.data.get("tool_name") if call else None)
            what = _named(tool, call)
            output, is_error = as_text(data.get("output")), bool(data.get("is_error"))
            if is_cancelled(output, is_error):
                cancelled.append(what)
            elif is_declined(output, is_error):
                facts.append(f"The user declined {what}: it did not run.")
            elif is_error:
                failed.append(what)
                facts.append(f"{what} failed.")
            elif is_backgrounded(tool_input, output):
                facts.append(
                    f"{what} was only started in the background: its outcome is not known "
                    "yet (say it started; never that it passed or succeeded)."
                )
            elif tool in _JOB_TOOLS and _JOB_RUNNING.search(output):
                facts.append(f"{what} shows the background job is still running.")
            elif _PIPED.search(str(tool_input.get("command") or "")):
                facts.append(
                    f"{what} is piped: its exit status is the last program's, so the output "
                    "alone tells how it went (a crash, or no summary, is not a pass)."
                )
        elif event.type == "user_message" and is_interruption(str(data.get("text", ""))):
            facts.append("The user interrupted the agent.")
        elif event.type == "user_message" and data.get("origin") not in (None, "user"):
            facts.append(
                f"A {str(data['origin']).replace('_', ' ')} message came in: it is not the "
                "user's request (never tell it as 'You asked me')."
            )
    for use_id, call in calls.items():
        if use_id not in answered:
            what = _named(call.data.get("tool_name"), call)
            facts.append(f"{what} is still running: no result yet (state no outcome for it).")
    if cancelled:
        cause = f"{failed[0]} failed" if failed else "a parallel call failed earlier"
        facts.append(
            f"{len(cancelled)} parallel call(s) were cancelled because {cause}: "
            f"{'; '.join(cancelled[:5])}. Say this once, as that failure's consequence, not "
            "as failures of their own."
        )
    return facts[:limit]


def _named(tool: Any, call: Event | None) -> str:
    detail = salient_input(call.data.get("input") or {}, 80) if call else ""
    name = str(tool or "a tool")
    return f"{name} ({detail})" if detail else name


def folded_digest(events: Iterable[Event]) -> Event:
    """The ``events_folded`` digest of ``events``, as a narrator receives it first in a
    batch when the buffer folded them (see docs/formats.md): for testing how a narrator
    tells one."""
    from ._fold import Fold

    fold = Fold()
    for event in events:
        fold.add(event)
    return fold.as_event()
