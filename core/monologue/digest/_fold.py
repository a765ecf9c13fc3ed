"""Events the pending buffer folds at its cap, kept as one bounded digest.

When ``buffer_cap`` events wait (the narrator is slow, waiting, or a ``should_speak`` plugin
holds) and another arrives, the oldest is not dropped: it is folded into a :class:`Fold`.
The next narration turn receives the fold as the first event of its batch, of type
``events_folded`` (:class:`~monologue.events.EventsFoldedData`), and its narrative covers
the folded events, so every event is covered by some narrative while memory stays bounded:
the fold keeps counts by type and tool, at most ``NAME_LIMIT`` files, commands and error
messages, the files edited and the ``git commit`` / ``git push`` commands (so that a narrator
can name what changed, not only count it), the latest of each, the id range, and the folded
ids themselves up to ``ID_LIMIT``. Past that the ids are let go and the narrative names the
range instead (``covers_range``): every narrated event of the session from its first to its
last id, inclusive.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from monologue.events import FOLDED_TYPE, Event, EventsFoldedData
from monologue.redact import redact

from . import COMMAND_KEYS, PATH_KEYS, as_text, truncate

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

ID_LIMIT = 4096
"""Folded ids listed one by one (about 300 KB); beyond, the range alone."""
NAME_LIMIT = 20
"""Files and commands named; the totals count the rest."""
ERROR_LIMIT = 5
"""Error messages quoted; ``errors`` counts them all."""
TRACK_LIMIT = 500
"""Distinct files and commands remembered to count them; beyond, the totals are at least."""
KIND_LIMIT = 32
"""Distinct tools and event types counted by name; the rest count as ``other``."""
TEXT_LIMIT = 160
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
"""Tools that change the file they name."""
_EDITOR_EDITS = frozenset({"create", "str_replace", "insert", "undo_edit"})
"""SWE-agent's and OpenHands' ``str_replace_editor`` commands that change the file."""
_COMMIT = re.compile(r"\bgit\s+(?:-[Cc]\s+\S+\s+)*(?:commit|push)\b")


__all__ = ["Fold", "covered", "event_count"]


@dataclass(slots=True)
class _Tally:
    """:class:`EventsFoldedData`'s fields but ``text``, as plain attributes: a fold is
    updated once per folded event on the agent's thread, and a pydantic model's
    ``__setattr__`` would cost several times the update itself."""

    count: int = 0
    first_id: str = ""
    last_id: str = ""
    first_ts: datetime | None = None
    last_ts: datetime | None = None
    ids: list[str] = field(default_factory=list)
    ids_complete: bool = True
    types: dict[str, int] = field(default_factory=dict)
    tools: dict[str, int] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    files_total: int = 0
    files_at_least: bool = False
    commands: list[str] = field(default_factory=list)
    commands_total: int = 0
    commands_at_least: bool = False
    edited: list[str] = field(default_factory=list)
    edited_total: int = 0
    edited_at_least: bool = False
    commits: list[str] = field(default_factory=list)
    commits_total: int = 0
    last_file: str = ""
    last_edited: str = ""
    last_commit: str = ""
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)


_TALLY_FIELDS = tuple(f.name for f in fields(_Tally))


class Fold:
    """The events folded since the last narration turn took them, oldest first."""

    def __init__(self) -> None:
        self.data = _Tally()
        self._session_id = ""
        self._agent = ""
        # Distinct names seen, in order (a dict: ordered and fast to test), up to TRACK_LIMIT.
        self._files: dict[str, None] = {}
        self._commands: dict[str, None] = {}
        self._edited: dict[str, None] = {}

    def __len__(self) -> int:
        return self.data.count

    def add(self, event: Event) -> None:
        """Fold ``event``, which is newer than everything folded so far."""
        data = self.data
        if not data.count:
            data.first_id, data.first_ts = event.id, event.ts
            self._session_id, self._agent = event.session_id, event.agent
        data.last_id, data.last_ts = event.id, event.ts
        data.count += 1
        if data.ids_complete:
            if data.count <= ID_LIMIT:
                data.ids.append(event.id)
            else:
                data.ids_complete = False
                data.ids = []
        kind = event.type
        _bump(data.types, kind)
        payload = event.data
        if kind == "tool_call":
            _bump(data.tools, str(payload.get("tool_name")))
            tool_input = payload.get("input")
            if isinstance(tool_input, dict):
                self._tool_call(str(payload.get("tool_name")), tool_input)
        elif (kind == "tool_result" and payload.get("is_error")) or kind == "error":
            data.errors += 1
            if len(data.error_samples) < ERROR_LIMIT:
                message = as_text(payload.get("message") or payload.get("output"))
                data.error_samples.append(truncate(" ".join(message.split()), TEXT_LIMIT))

    def then(self, newer: Fold) -> Fold:
        """This fold followed by ``newer``'s events (all newer than this fold's): this fold,
        extended, or ``newer`` itself when this one is empty."""
        theirs = newer.data
        if not theirs.count:
            return self
        data = self.data
        if not data.count:
            return newer
        data.last_id, data.last_ts = theirs.last_id, theirs.last_ts
        data.count += theirs.count
        data.ids_complete = data.ids_complete and theirs.ids_complete and data.count <= ID_LIMIT
        data.ids = [*data.ids, *theirs.ids] if data.ids_complete else []
        for name, count in theirs.types.items():
            _bump(data.types, name, count)
        for name, count in theirs.tools.items():
            _bump(data.tools, name, count)
        for name in newer.distinct("files"):
            self._remember(name, self._files, data.files, "files")
        for name in newer.distinct("commands"):
            self._remember(name, self._commands, data.commands, "commands")
        for name in newer.distinct("edited"):
            self._remember(name, self._edited, data.edited, "edited")
        data.commits += theirs.commits[: max(NAME_LIMIT - len(data.commits), 0)]
        data.commits_total += theirs.commits_total
        data.last_file = theirs.last_file or data.last_file
        data.last_edited = theirs.last_edited or data.last_edited
        data.last_commit = theirs.last_commit or data.last_commit
        data.files_at_least |= theirs.files_at_least
        data.commands_at_least |= theirs.commands_at_least
        data.edited_at_least |= theirs.edited_at_least
        data.errors += theirs.errors
        room = ERROR_LIMIT - len(data.error_samples)
        data.error_samples += theirs.error_samples[: max(room, 0)]
        return self

    def distinct(self, what: Literal["files", "commands", "edited"]) -> list[str]:
        """The distinct files, commands or edited files tracked, in the order first seen."""
        seen = {"files": self._files, "commands": self._commands, "edited": self._edited}
        return list(seen[what])

    def as_event(self) -> Event:
        """The fold as the ``events_folded`` event a narrator receives (never recorded);
        the names it quotes are redacted here, off the agent's thread."""
        tally = self.data
        values = {name: getattr(tally, name) for name in _TALLY_FIELDS}
        values.update(
            files=redact(tally.files),
            commands=redact(tally.commands),
            edited=redact(tally.edited),
            commits=redact(tally.commits),
            last_file=redact(tally.last_file),
            last_edited=redact(tally.last_edited),
            last_commit=redact(tally.last_commit),
            error_samples=redact(tally.error_samples),
        )
        # Built here from typed fields, and dumped at once: nothing to validate.
        data = EventsFoldedData.model_construct(**values)
        data.text = describe(data)
        return Event.trusted(
            FOLDED_TYPE, data.model_dump(), session_id=self._session_id, agent=self._agent
        )

    def _tool_call(self, tool: str, tool_input: dict[str, Any]) -> None:
        data = self.data
        path = _first(tool_input, PATH_KEYS)
        if path:
            self._remember(path, self._files, data.files, "files")
            data.last_file = path
            if tool in EDIT_TOOLS or (
                tool.lower() == "str_replace_editor" and tool_input.get("command") in _EDITOR_EDITS
            ):
                self._remember(path, self._edited, data.edited, "edited")
                data.last_edited = path
        command = _first(tool_input, COMMAND_KEYS)
        if command:
            self._remember(command, self._commands, data.commands, "commands")
            if _commits(command):
                data.commits_total += 1
                data.last_commit = command
                if len(data.commits) < NAME_LIMIT:
                    data.commits.append(command)

    def _remember(self, name: str, seen: dict[str, None], named: list[str], what: str) -> None:
        if name in seen:
            return
        data = self.data
        if len(seen) >= TRACK_LIMIT:
            # A name never tracked may come again: stop counting and say the total is a floor.
            setattr(data, f"{what}_at_least", True)
            return
        seen[name] = None
        setattr(data, f"{what}_total", len(seen))
        if len(named) < NAME_LIMIT:
            named.append(name)


def _first(tool_input: dict[str, Any], keys: tuple[str, ...]) -> str:
    """The first non-blank string under ``keys``, on one line and truncated; else ``""``."""
    for key in keys:
        value = tool_input.get(key)
        if isinstance(value, str):
            name = _one_line(value)
            if name:
                return name
    return ""


_CACHED_CHARS = 512
_T = TypeVar("_T")


def _short_cached(function: Callable[[str], _T]) -> Callable[[str], _T]:
    """``function`` of a name, remembered for the last 1,024 names of up to
    :data:`_CACHED_CHARS` characters (longer ones are not kept): an agent names the same few
    files and commands again and again, and a flood of events folds each of them."""
    cached = functools.lru_cache(maxsize=1024)(function)
    return lambda value: cached(value) if len(value) <= _CACHED_CHARS else function(value)


@_short_cached
def _one_line(value: str) -> str:
    return truncate(" ".join(value.split()), TEXT_LIMIT)


@_short_cached
def _commits(command: str) -> bool:
    return _COMMIT.search(command) is not None


def _bump(counts: dict[str, int], name: str, by: int = 1) -> None:
    if name in counts:  # the common case, once per folded event
        counts[name] += by
        return
    if len(counts) >= KIND_LIMIT:
        name = "other"
    counts[name] = counts.get(name, 0) + by


def describe(data: EventsFoldedData) -> str:
    """One plain line about the folded events, true for any narrator to show."""
    parts = [f"{data.count} earlier event(s) folded while narration was behind"]
    if data.tools:
        tools = ", ".join(f"{n} {name}" for name, n in sorted(data.tools.items(), key=_most))
        parts.append(f"tool calls: {tools}")
    if data.files_total:
        parts.append(f"files: {_named(data.files, data.files_total, data.files_at_least)}")
    if data.commands_total:
        named = _named(data.commands, data.commands_total, data.commands_at_least)
        parts.append(f"commands: {named}")
    if data.edited_total:
        parts.append(f"edited: {_named(data.edited, data.edited_total, data.edited_at_least)}")
    if data.commits_total:
        parts.append(f"git commit/push: {_named(data.commits, data.commits_total, False)}")
    if data.errors:
        parts.append(f"{data.errors} error(s): " + "; ".join(data.error_samples))
    return "; ".join(parts)


def _most(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


def _named(names: list[str], total: int, at_least: bool) -> str:
    more = total - len(names)
    text = ", ".join(names)
    if more > 0:
        text += f" and {'at least ' if at_least else ''}{more} more"
    return text


def covered(events: Sequence[Event]) -> tuple[list[str], list[str] | None]:
    """What a narrative of ``events`` covers: the ids (a fold's folded ids in place of its
    own), and the ``[first, last]`` id range of a fold too large to list, if any."""
    ids: list[str] = []
    span: list[str] | None = None
    for event in events:
        if event.type != FOLDED_TYPE:
            ids.append(event.id)
        elif event.data.get("ids_complete", True):
            ids.extend(event.data.get("ids") or ())
        else:
            span = [event.data["first_id"], event.data["last_id"]]
    return ids, span


def event_count(events: Sequence[Event]) -> int:
    """How many events a batch stands for, a digest counting as the events it folded."""
    return sum(event.data["count"] if event.type == FOLDED_TYPE else 1 for event in events)
