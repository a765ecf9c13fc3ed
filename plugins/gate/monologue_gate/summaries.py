"""Rolling summaries: older events compressed into a few lines, stored by content hash.

The summary is computed, not generated (no model): counts of tools, files touched, errors,
and the last things the agent said. The same events always give the same text, hence the
same ``summary_ref`` (``sum-`` and the first 16 hex digits of its SHA-256), so a caller can
tell a changed summary from an unchanged one by its ref alone. Stored summaries live in
``<data_dir>/summaries/<conversation_id>/<ref>.json``.
"""

from __future__ import annotations

import hashlib
import re
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from monologue.digest import PATH_KEYS, as_text, truncate
from monologue.events import Event
from monologue.files import write_atomically
from monologue.redact import redact

REF_PREFIX = "sum-"
MAX_FILES = 8
MAX_COUNTED_FILES = 4096
"""Distinct files beyond the named ones counted exactly; past this, "over N more"."""
MAX_TEXTS = 2
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_REF = re.compile(rf"{REF_PREFIX}[0-9a-f]{{16}}")


class StoredSummary(BaseModel):
    """One summary file."""

    ref: str
    conversation_id: str
    covers: int
    """How many events the summary compresses."""
    first_event_id: str | None = None
    last_event_id: str | None = None
    text: str


def summary_ref(text: str) -> str:
    """The content-hash reference of a summary text."""
    return REF_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _one_line(text: str, limit: int) -> str:
    return truncate(" ".join(redact(text).split()), limit)


class SummaryFold:
    """Events folded into what :func:`rolling_summary` says of them, a batch at a time.

    Memory stays bounded however long the session: counts, a few file names, the last
    error and the last :data:`MAX_TEXTS` things said.
    """

    def __init__(self) -> None:
        self.count = 0
        self.first: Event | None = None
        self.last: Event | None = None
        self._tools: dict[str, int] = {}
        self._files: dict[str, None] = {}
        self._more_files: set[str] = set()
        self._errors = 0
        self._last_error = ""
        self._texts: deque[str] = deque(maxlen=MAX_TEXTS)

    def extend(self, events: Sequence[Event]) -> None:
        """Fold ``events``, oldest first."""
        if not events:
            return
        self.count += len(events)
        if self.first is None:
            self.first = events[0]
        self.last = events[-1]
        # The live gate folds every event it sees: names bound once per batch, not per event,
        # and the events a summary says nothing of cost one type test.
        tools, files, texts = self._tools, self._files, self._texts
        for event in events:
            kind = event.type
            if kind == "tool_call":
                data = event.data
                name = str(data.get("tool_name"))
                tools[name] = tools.get(name, 0) + 1
                tool_input = data.get("input") or {}
                for key in PATH_KEYS:
                    if key in tool_input:
                        path = tool_input[key]
                        if isinstance(path, str) and path not in files:
                            self._file(path)
            elif kind == "tool_result":
                if event.data.get("is_error"):
                    self._error(event.data)
            elif kind == "error":
                self._error(event.data)
            elif kind in {"text", "narrative"}:
                text = event.data.get("text")
                if text:
                    texts.append(str(text))

    def _error(self, data: dict[str, Any]) -> None:
        self._errors += 1
        self._last_error = as_text(data.get("message", data.get("output")))

    def _file(self, name: str) -> None:
        if len(self._files) < MAX_FILES:
            self._files[name] = None
        elif len(self._more_files) < MAX_COUNTED_FILES:
            self._more_files.add(name)

    def render(self) -> str:
        """The summary text (empty before the first event)."""
        if self.first is None or self.last is None:
            return ""
        lines = [
            f"{self.count} earlier events, {self.first.ts:%H:%M:%S} to {self.last.ts:%H:%M:%S} UTC."
        ]
        if self._tools:
            ranked = sorted(self._tools.items(), key=lambda item: (-item[1], item[0]))
            lines.append("Tools: " + ", ".join(f"{name} x{count}" for name, count in ranked) + ".")
        if self._files:
            names = [_one_line(name, 120) for name in self._files]
            more = len(self._more_files)
            suffix = f" (+{more} more)" if more else ""
            if more >= MAX_COUNTED_FILES:
                suffix = f" (over {more} more)"
            lines.append("Files touched: " + ", ".join(names) + suffix + ".")
        if self._errors:
            lines.append(f"Errors: {self._errors} (last: {_one_line(self._last_error, 160)}).")
        lines.extend(f"Said: {_one_line(text, 200)}" for text in self._texts)
        return "\n".join(lines)


def rolling_summary(events: Sequence[Event]) -> str:
    """A deterministic few-line summary of ``events`` (empty for no events)."""
    fold = SummaryFold()
    fold.extend(events)
    return fold.render()


def _folder(data_dir: Path, conversation_id: str) -> Path:
    if not isinstance(conversation_id, str) or not _SAFE_ID.fullmatch(conversation_id):
        raise ValueError(
            f"conversation_id {conversation_id!r} cannot name a summary folder: use 1 to 128 "
            "letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    return Path(data_dir) / "summaries" / conversation_id


def persist_summary(
    conversation_id: str,
    text: str,
    data_dir: Path,
    events: Sequence[Event] | SummaryFold = (),
) -> str:
    """Store ``text`` for ``conversation_id`` under ``data_dir``; return its ``summary_ref``.

    Content-addressed: storing the same text again writes nothing. ``events`` (the events
    the text compresses, or their fold) only fills in the file's bookkeeping fields.
    """
    folder = _folder(data_dir, conversation_id)
    ref = summary_ref(text)
    target = folder / f"{ref}.json"
    if target.is_file():
        return ref
    if isinstance(events, SummaryFold):
        count, first, last = events.count, events.first, events.last
    else:
        count = len(events)
        first, last = (events[0], events[-1]) if events else (None, None)
    stored = StoredSummary(
        ref=ref,
        conversation_id=conversation_id,
        covers=count,
        first_event_id=first.id if first is not None else None,
        last_event_id=last.id if last is not None else None,
        text=text,
    )
    # Not fsynced: a summary lost to a power cut is rebuilt at the next refresh.
    write_atomically(target, stored.model_dump_json(indent=2) + "\n", durable=False)
    return ref


def forget_summary(conversation_id: str, ref: str, data_dir: Path) -> None:
    """Delete a stored summary (gone already is fine)."""
    (_folder(data_dir, conversation_id) / f"{ref}.json").unlink(missing_ok=True)


def load_summary(conversation_id: str, ref: str, data_dir: Path) -> StoredSummary:
    """Read a stored summary back; errors name the file and what is wrong with it."""
    if not _REF.fullmatch(ref):
        raise ValueError(f"summary ref {ref!r} is not a ref ({REF_PREFIX} and 16 hex digits)")
    path = _folder(data_dir, conversation_id) / f"{ref}.json"
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LookupError(f"{path}: no stored summary {ref}") from None
    try:
        stored = StoredSummary.model_validate_json(raw)
    except ValidationError as exc:
        raise ValueError(f"{path}: not a stored summary: {exc.errors()[0]['msg']}") from None
    if summary_ref(stored.text) != ref:
        raise ValueError(f"{path}: its text does not hash to {ref}; the file was altered")
    return stored
