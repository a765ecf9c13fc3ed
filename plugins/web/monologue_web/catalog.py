"""The sessions of a record folder: which exist, and a summary of each, kept up to date.

Every recording is read once from its start; afterwards only what was appended since is
read, so refreshing a folder of finished sessions costs one ``stat`` per file. Only regular
files are listed (see :mod:`monologue_web.reading`: a FIFO, socket or device in the folder is
passed over at the cost of one ``lstat``). Session ids from URLs go through
:func:`recording_path`, the only way a path is made from one, so nothing outside the record
folder is ever opened.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel

from monologue.errors import RecordingError

from .reading import Checkpoint, NotARecording, RecordingLines, recording_file

__all__ = ["SessionCatalog", "SessionSummary", "recording_path", "title_of"]

log = logging.getLogger("monologue.web")

# A ULID, or any id a caller gave a session: letters, digits, `-`, `_` and inner dots; no
# separators, no `..`, nothing that a filesystem could read as a path.
_SESSION_ID: Final = re.compile(r"[A-Za-z0-9_-](?:[A-Za-z0-9_.-]{0,126}[A-Za-z0-9_-])?")
_TITLE_CHARS: Final = 80
# Counted per refresh and recording: a large recording new to the catalog is counted over
# several refreshes, so that no refresh of the list waits for it.
_COUNT_BYTES: Final = 16 << 20
# The index of a recording: where to read on from, about every 4 MiB of lines.
_CHECKPOINT_BYTES: Final = 4 << 20
# Prompts a harness or Claude Code wrote, not the user: tags, and a compaction's summary.
_NOT_A_PROMPT: Final = ("<", "This session is being continued from a previous conversation")

State = Literal["live", "finished"]


def recording_path(record_dir: Path, session_id: str) -> Path | None:
    """The recording of ``session_id`` inside ``record_dir``, or ``None`` when the id is not
    a plain id, or names no regular file that really lies in the folder (symlinks out of it
    included)."""
    if not _SESSION_ID.fullmatch(session_id) or ".." in session_id:
        return None
    return recording_file(record_dir.resolve(), f"{session_id}.jsonl")


def title_of(text: str) -> str:
    """A prompt shortened to one line of at most 80 characters."""
    line = " ".join(text.split())
    return line if len(line) <= _TITLE_CHARS else line[: _TITLE_CHARS - 1].rstrip() + "…"


class SessionSummary(BaseModel):
    """One session as the sessions list shows it."""

    id: str
    agent: str
    title: str | None = None
    """The first prompt (a user's ``user_message``), or the task the header names, shortened."""
    started_at: datetime
    task_id: str | None = None
    state: State
    completed: bool
    failed: bool
    events: int
    narratives: int
    errors: int
    silences: int
    counted: bool = True
    """``False`` while a large recording is still being counted: the counts grow."""
    updated_at: float


class _Counts:
    """What one recording holds so far, and the tail reading it while it may still grow."""

    def __init__(self, tail: RecordingLines) -> None:
        self.header = tail.header
        self.tail: RecordingLines | None = tail
        self.size = -1
        self.lines = 0
        self.events = self.narratives = self.errors = self.silences = 0
        self.completed = self.failed = False
        self.counted = False
        self.checkpoints: list[Checkpoint] = [tail.position]
        """Places to read on from, in order: a resumed stream skips to the last before it."""
        meta = self.header.meta
        task = meta.get("title") or meta.get("task") or meta.get("prompt")
        self.title = title_of(task) if isinstance(task, str) and task.strip() else None

    def follow(self, path: Path, size: int) -> None:
        """Count what was appended since the last call (the file is ``size`` bytes now), or
        the next 16 MiB of it: :attr:`counted` says whether that was all."""
        if size == self.size and self.counted:
            return
        self.size = size
        if self.tail is None:
            # A finished session grew after all: reopen it where the counting stopped.
            self.tail = RecordingLines(path, self.lines, self.checkpoints[-1])
        self.counted = False
        taken = 0
        try:
            while taken < _COUNT_BYTES:
                batch = self.tail.read()
                if not batch:
                    self.counted = True
                    break
                for lineno, raw, event in batch:
                    self.lines = lineno
                    taken += len(raw)
                    self._take(event)
                position = self.tail.position
                if position.offset - self.checkpoints[-1].offset >= _CHECKPOINT_BYTES:
                    self.checkpoints.append(position)
        except RecordingError as exc:
            log.warning("%s", exc)
            self.counted = True
            self.stop()

    def stop(self) -> None:
        """Close the file; a later growth reopens it."""
        if self.tail is not None:
            self.checkpoints.append(self.tail.position)
            self.tail.close()
            self.tail = None

    def _take(self, event: dict[str, Any]) -> None:
        self.events += 1
        kind, data = event["type"], event["data"]
        if kind == "narrative":
            self.narratives += 1
        elif kind == "narration_suppressed":
            self.silences += 1
        elif kind == "error" or (kind == "tool_result" and data.get("is_error")):
            self.errors += 1
        elif kind == "completion":
            self.completed = True
            self.failed = bool(data.get("is_error"))
        elif kind == "user_message" and self.title is None:
            text = data.get("text")
            if (
                data.get("origin", "user") == "user"
                and isinstance(text, str)
                and text.strip()
                and not text.lstrip().startswith(_NOT_A_PROMPT)
            ):
                self.title = title_of(text)


class SessionCatalog:
    """Summaries of every recording in ``record_dir``, newest first.

    A session is ``live`` until its ``completion`` event is recorded, or until nothing was
    appended for ``idle_after`` seconds (a process killed before completing never will).
    """

    def __init__(self, record_dir: Path, idle_after: float = 600.0) -> None:
        self.record_dir = record_dir
        self.idle_after = idle_after
        self._lock = threading.Lock()
        self._known: dict[Path, _Counts] = {}
        self._last: tuple[float, list[SessionSummary]] = (float("-inf"), [])

    def summaries(self, max_age: float = 0.0) -> list[SessionSummary]:
        """Every readable session, newest first, refreshed from the disk unless the last
        refresh is younger than ``max_age`` seconds (many list clients share one)."""
        with self._lock:
            taken, rows = self._last
            if time.monotonic() - taken >= max_age:
                listed = self._recordings()
                for gone in self._known.keys() - {path for _, path in listed}:
                    self._forget(gone)
                found = [self._summary(*entry) for entry in listed]
                rows = [row for row in found if row is not None]
                rows.sort(key=lambda row: (row.started_at, row.id), reverse=True)
                self._last = (time.monotonic(), rows)
            return list(rows)

    def summary(self, session_id: str) -> SessionSummary | None:
        path = recording_path(self.record_dir, session_id)
        if path is None:
            return None
        with self._lock:
            return self._summary(session_id, path)

    def checkpoint(self, path: Path, after_line: int) -> Checkpoint | None:
        """The last place of ``path``'s index at or before ``after_line``, if it was
        indexed. Takes no lock (a list read is atomic), so the event loop may ask."""
        counts = self._known.get(path)
        if counts is None:
            return None
        found = None
        for place in list(counts.checkpoints):
            if place.lineno > after_line:
                break
            found = place
        return found

    def _recordings(self) -> list[tuple[str, Path]]:
        """``(session id, regular file)`` of every recording in the folder."""
        folder = self.record_dir.resolve()
        try:
            names = [name for name in os.listdir(folder) if name.endswith(".jsonl")]
        except OSError:
            return []
        found = [(name[: -len(".jsonl")], recording_file(folder, name)) for name in names]
        return [(session_id, path) for session_id, path in found if path is not None]

    def _summary(self, session_id: str, path: Path) -> SessionSummary | None:
        try:
            stat = path.stat()
        except OSError:
            self._forget(path)
            return None
        counts = self._known.get(path)
        if counts is None:
            try:
                counts = self._known[path] = _Counts(RecordingLines(path))
            except (NotARecording, RecordingError, OSError) as exc:
                log.debug("%s", exc)
                return None
        try:
            counts.follow(path, stat.st_size)
        except (NotARecording, OSError):
            self._forget(path)
            return None
        header = counts.header
        idle = time.time() - stat.st_mtime > self.idle_after
        if counts.counted and (counts.completed or idle):
            # Only live sessions, and those still being counted, keep their file open.
            counts.stop()
        return SessionSummary(
            id=session_id,
            agent=header.agent,
            title=counts.title,
            started_at=header.started_at,
            task_id=getattr(header, "task_id", None),
            state="finished" if counts.completed or idle else "live",
            completed=counts.completed,
            failed=counts.failed,
            events=counts.events,
            narratives=counts.narratives,
            errors=counts.errors,
            silences=counts.silences,
            counted=counts.counted,
            updated_at=stat.st_mtime,
        )

    def _forget(self, path: Path) -> None:
        counts = self._known.pop(path, None)
        if counts is not None:
            counts.stop()

    def close(self) -> None:
        """Close the files of the live sessions."""
        with self._lock:
            for path in list(self._known):
                self._forget(path)
