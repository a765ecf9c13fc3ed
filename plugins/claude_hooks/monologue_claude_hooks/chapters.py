"""Chapters: a session's events cut into parts a person can skim, each with a title of three
to six words and a one-line summary, deterministic and offline.

A chapter starts at:

- each user prompt (``prompt``);
- a change of plan: a todo list whose current item changes, a plan presented (``plan``);
- a switch of activity between exploring, editing, testing and fixing (``activity``), once
  the current chapter has :attr:`ChapterBuilder.min_calls` tool calls;
- a sub-agent's start and end (``subagent_start``, ``subagent_end``);
- work resuming after a long idle (``idle``).

A ``chapter`` event is emitted right after the event that opens it; its ``covers`` lists
that event, and the chapter runs until the next one. Titles and summaries say only what the
opening event shows: a prompt's own words, the file or command a switch starts with, a
sub-agent's type and task, a result's error flag.

The builder reads the core's generic events (``user_message``, ``tool_call``,
``tool_result``), so chapters come with every format a reader plugin knows, live or replayed.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePath, PureWindowsPath
from typing import Any, Literal

from pydantic import BaseModel, Field

__all__ = [
    "CHAPTER_TYPE",
    "ChapterBuilder",
    "ChapterData",
    "activity_of",
    "prompt_title",
]

CHAPTER_TYPE = "chapter"

DEFAULT_IDLE_S = 300.0
"""A gap longer than this between two events opens a chapter when work resumes."""


class ChapterData(BaseModel):
    """The payload of a ``chapter`` event."""

    title: str
    """Three to six words."""
    summary: str
    """One line."""
    covers: list[str] = Field(default_factory=list)
    """The events that opened the chapter (it runs until the next chapter)."""
    reason: str
    """``prompt``, ``plan``, ``activity``, ``subagent_start``, ``subagent_end`` or ``idle``."""
    writer: Literal["offline", "haiku"] = "offline"
    """Who wrote the title and summary: this module, or Claude Haiku (:mod:`.haiku`)."""
    fallback: str | None = None
    """Why Haiku's version was not used, when it was asked for one."""


_WORK = frozenset({"tool_call", "tool_result", "text", "thinking", "user_message"})
_PLAN_TOOLS = frozenset({"todowrite", "taskcreate", "taskupdate", "update_plan", "exitplanmode"})
_SUBAGENT_TOOLS = frozenset({"task", "agent"})
_EDIT_TOOLS = frozenset(
    {"edit", "write", "multiedit", "notebookedit", "str_replace_editor", "apply_patch", "create"}
)
_EXPLORE_TOOLS = frozenset(
    {"read", "grep", "glob", "ls", "webfetch", "websearch", "toolsearch", "view", "find", "search"}
)
_COMMAND_TOOLS = frozenset({"bash", "shell", "execute", "run", "execute_bash", "terminal"})
_TEST_COMMAND = re.compile(
    r"\b(pytest|tox|nox|unittest|jest|vitest|mocha|rspec|phpunit|ctest|"
    r"(npm|pnpm|yarn|bun)( run)? test|(cargo|go|mix|dotnet|swift|deno) test|make (test|check))\b"
)
_READ_COMMAND = re.compile(
    r"^\s*(ls|cat|head|tail|grep|rg|find|tree|wc|pwd|which|file|stat|less|sed -n|"
    r"git (status|log|diff|show|ls-files|blame|grep))\b"
)
_WORD = re.compile(r"[\w][\w'./-]*")
_TAG = re.compile(r"<[^>]+>")


def _command(event_input: dict[str, Any]) -> str | None:
    for key in ("command", "cmd"):
        value = event_input.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
        if isinstance(value, list) and value:
            return " ".join(str(part) for part in value)
    return None


def _subject(event_input: dict[str, Any]) -> str | None:
    """The file, pattern or command word a tool call is about."""
    for key in ("file_path", "path", "notebook_path"):
        value = event_input.get(key)
        if isinstance(value, str) and value.strip():
            path = PureWindowsPath(value) if "\\" in value else PurePath(value)
            return path.name or value
    for key in ("pattern", "query", "url"):
        value = event_input.get(key)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split()[:2])
    command = _command(event_input)
    return command.split()[0].rsplit("/", 1)[-1] if command else None


def activity_of(tool_name: str, event_input: dict[str, Any]) -> str | None:
    """``exploring``, ``editing`` or ``testing`` for a tool call, else ``None`` (no switch)."""
    name = tool_name.lower().rsplit("__", 1)[-1]
    if name in _EDIT_TOOLS:
        return "editing"
    if name in _EXPLORE_TOOLS:
        return "exploring"
    command = _command(event_input)
    if name in _COMMAND_TOOLS or command is not None:
        if command is None:
            return None
        if _TEST_COMMAND.search(command):
            return "testing"
        if _READ_COMMAND.match(command):
            return "exploring"
    return None


def _words(text: str) -> list[str]:
    return _WORD.findall(_TAG.sub(" ", text))


def _clip(text: str, limit: int = 100) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _title(words: list[str], fallback: str) -> str:
    """Three to six words: ``words`` cut to six, padded from ``fallback`` when too short."""
    chosen = words[:6]
    if len(chosen) >= 3:
        return " ".join(chosen)
    return " ".join([*fallback.split(), *chosen][:6]) if chosen else fallback


def prompt_title(prompt: str) -> str:
    """A prompt's first words as a title (``/prime`` becomes "Your request: /prime")."""
    words = _words(prompt)
    if words:
        words[0] = words[0][:1].upper() + words[0][1:]
    slash = prompt.strip().split()[0] if prompt.strip().startswith("/") else None
    if slash and len(words) < 3:
        return f"Your request: {slash}"
    return _title(words, "Your new request:")


def _is_prompt(data: dict[str, Any]) -> bool:
    origin = data.get("origin")
    if origin is not None:
        return bool(origin == "user")
    text = str(data.get("text", "")).lstrip()
    return not text.startswith(
        ("<", "[Request interrupted by user", "This session is being continued from")
    )


_ACTIVITY_TITLES = {
    "exploring": ("Looking into {subject}", "Exploring the project files"),
    "editing": ("Making changes to {subject}", "Making changes to files"),
    "testing": ("Running the tests with {subject}", "Running the tests"),
    "fixing": ("Editing {subject} after failures", "Editing after a failed test"),
}


def _plan_step(tool_input: dict[str, Any]) -> tuple[str, str] | None:
    """(title, summary) for a plan change worth a chapter, else ``None``."""
    todos = tool_input.get("todos")
    if isinstance(todos, list):
        items = [t for t in todos if isinstance(t, dict)]
        current = next((t for t in items if t.get("status") == "in_progress"), None)
        done = sum(1 for t in items if t.get("status") == "completed")
        if current is None:
            return None
        step = str(current.get("activeForm") or current.get("content") or "")
        summary = f"The plan has {len(items)} items, {done} done; now: {_clip(step, 80)}."
        return _title(_words(step), "Next step:"), summary
    plan = tool_input.get("plan")
    if isinstance(plan, str) and plan.strip():
        return "Presenting a plan", f"I presented a plan: {_clip(plan, 80)}"
    return None


@dataclass
class _Chapter:
    activity: str | None = None
    calls: int = 0
    step: str | None = None


@dataclass
class ChapterBuilder:
    """Cuts one session's events into chapters (one builder per session, fed in order)."""

    main_agent: str
    idle_s: float = DEFAULT_IDLE_S
    min_calls: int = 3
    """Tool calls a chapter holds before a switch of activity may end it."""
    passive: bool = False
    """Set when the source has chapters of its own: they are kept, none are added."""
    _chapter: _Chapter = field(default_factory=_Chapter)
    _last_ts: datetime | None = None
    _test_failed: bool = False
    _tests: set[str] = field(default_factory=set)
    _launches: OrderedDict[str, str] = field(default_factory=OrderedDict)
    _made: set[str] = field(default_factory=set)

    def saw_chapter(self, event_id: str) -> None:
        """A ``chapter`` event went by: ours, or the source's (then stay passive)."""
        if event_id in self._made:
            self._made.discard(event_id)
        else:
            self.passive = True

    def made(self, event_id: str) -> None:
        """Mark the chapter event the caller dispatched for what :meth:`feed` returned."""
        self._made.add(event_id)

    def feed(self, event: Any) -> ChapterData | None:
        """The chapter ``event`` opens, if any."""
        if self.passive:
            return None
        gap = 0.0
        if event.type in _WORK:
            # Only the agent's own work resumes after a pause: a completion that closing a
            # session adds, say, is stamped later than a replayed session's events.
            if self._last_ts is not None:
                gap = (event.ts - self._last_ts).total_seconds()
            self._last_ts = event.ts
        opened = self._boundary(event)
        if opened is None and gap > self.idle_s:
            minutes = max(1, round(gap / 60))
            opened = self._open(
                "Resuming after a pause",
                f"Work resumed after about {minutes} minute(s) without any event.",
                "idle",
                event,
            )
        return opened

    def _open(
        self, title: str, summary: str, reason: str, event: Any, activity: str | None = None
    ) -> ChapterData:
        self._chapter = _Chapter(activity=activity, step=self._chapter.step)
        title = _title(title.split(), "A new chapter:")
        return ChapterData(title=title, summary=summary, covers=[event.id], reason=reason)

    def _boundary(self, event: Any) -> ChapterData | None:
        data = event.data
        if event.type == "user_message" and event.agent in ("", self.main_agent):
            if not _is_prompt(data):
                return None
            text = str(data.get("text", ""))
            return self._open(prompt_title(text), f'You asked: "{_clip(text)}"', "prompt", event)
        if event.type == "tool_result":
            return self._result(event)
        if event.type != "tool_call":
            return None
        name = str(data.get("tool_name", ""))
        tool_input = data.get("input") if isinstance(data.get("input"), dict) else {}
        lowered = name.lower()
        if lowered in _SUBAGENT_TOOLS:
            return self._launch(event, tool_input)
        if event.agent not in ("", self.main_agent):
            return None  # a sub-agent's own work stays inside its chapter
        if lowered in _PLAN_TOOLS:
            return self._plan(event, tool_input)
        self._chapter.calls += 1
        activity = activity_of(name, tool_input)
        if activity == "testing":
            if len(self._tests) > 256:
                self._tests.clear()  # results that never came
            self._tests.add(str(data.get("tool_use_id")))
        elif activity == "editing" and self._test_failed:
            activity = "fixing"
        if activity is None or activity == self._chapter.activity:
            return None
        if self._chapter.activity is None or self._chapter.calls <= self.min_calls:
            self._chapter.activity = self._chapter.activity or activity
            return None
        previous = self._chapter.activity
        subject = _subject(tool_input)
        with_subject, plain = _ACTIVITY_TITLES[activity]
        title = with_subject.format(subject=subject) if subject else plain
        opening = f"{name} {subject}" if subject else name
        chapter = self._open(
            _title(title.split(), plain),
            f"I went from {previous} to {activity}, starting with {opening}.",
            "activity",
            event,
            activity,
        )
        self._chapter.calls = 1
        return chapter

    def _plan(self, event: Any, tool_input: dict[str, Any]) -> ChapterData | None:
        found = _plan_step(tool_input)
        if found is None or found[0] == self._chapter.step:
            return None
        self._chapter.step = found[0]
        return self._open(found[0], found[1], "plan", event)

    def _launch(self, event: Any, tool_input: dict[str, Any]) -> ChapterData:
        kind = str(tool_input.get("subagent_type") or "").strip()
        task = " ".join(str(tool_input.get("description") or "").split())
        label = kind or "new"
        self._launches[str(event.data.get("tool_use_id"))] = label
        while len(self._launches) > 256:
            self._launches.popitem(last=False)
        title = _title([label, "sub-agent:", *_words(task)[:3]], "Starting a sub-agent")
        summary = f"I started the {label} sub-agent" + (f': "{_clip(task, 80)}".' if task else ".")
        return self._open(title, summary, "subagent_start", event)

    def _result(self, event: Any) -> ChapterData | None:
        tool_id = str(event.data.get("tool_use_id"))
        failed = bool(event.data.get("is_error"))
        if tool_id in self._tests:
            self._tests.discard(tool_id)
            self._test_failed = failed
        label = self._launches.pop(tool_id, None)
        if label is None:
            return None
        outcome = "returned an error" if failed else "finished"
        return self._open(
            f"Back from the {label} sub-agent",
            f"The {label} sub-agent {outcome}.",
            "subagent_end",
            event,
        )
