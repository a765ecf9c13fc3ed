"""``tasks.journal.<generation>.jsonl``: every change since the snapshot, one line each.

A line is one atomic step: the tasks as they are after it, the lifecycle events that report
it, written with one ``write`` while the graph's lock is held. The flush comes after the
lock is released, and processes that write at the same time share one (group commit, see
:mod:`.group_commit`): nobody waits under the lock for the disk. A line is only ever read
up to its newline: a line cut short by a crash is invisible, and the next writer cuts it
off.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from monologue.events import describe_validation_error

from .errors import GraphFileError, TaskGraphError
from .files import open_private
from .group_commit import GroupCommit
from .models import AgentTask
from .storage import TaskEvent

__all__ = ["Entry", "JournalFile", "journal_name"]


class Entry(BaseModel):
    """One line of the journal."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tasks: list[AgentTask] = Field(default_factory=list)
    events: list[TaskEvent] = Field(default_factory=list)


def journal_name(generation: int) -> str:
    return f"tasks.journal.{generation}.jsonl"


class JournalFile:
    """One generation's journal, read from where this process last stopped."""

    def __init__(self, path: Path, *, writable: bool) -> None:
        self.path = path
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT if writable else os.O_RDONLY
        self.writable = writable
        self._fd = open_private(path, flags)
        self.offset = 0
        self.lines = 0
        self.cut = False
        """Whether this process ever truncated the file (a torn line, a failed write)."""

    def close(self) -> None:
        os.close(self._fd)

    def make_writable(self) -> None:
        """Reopen for appending, keeping the place read so far (same file, same inode)."""
        fd = open_private(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
        if os.fstat(fd).st_ino != os.fstat(self._fd).st_ino:
            os.close(fd)
            raise FileNotFoundError(self.path)  # replaced meanwhile: start afresh
        os.close(self._fd)
        self._fd, self.writable = fd, True

    def read_new(self, *, cut_torn_tail: bool = False) -> list[Entry]:
        """Entries appended since the last call. Under the lock, ``cut_torn_tail`` truncates
        a last line without its newline (a writer died in the middle of it)."""
        size = os.fstat(self._fd).st_size
        if size <= self.offset:
            return []
        raw = os.pread(self._fd, size - self.offset, self.offset)
        end = raw.rfind(b"\n") + 1
        if cut_torn_tail and end < len(raw):
            os.ftruncate(self._fd, self.offset + end)
            self.cut = True
        entries = []
        for number, line in enumerate(raw[:end].splitlines(), start=self.lines + 1):
            try:
                entries.append(Entry.model_validate_json(line))
            except ValidationError as exc:
                raise GraphFileError(
                    self.path,
                    f"line {number} is not a journal entry: {describe_validation_error(exc)[1]}. "
                    "The file was left untouched; repair it or move it aside",
                ) from None
        self.offset += end
        self.lines += len(entries)
        return entries

    def append(self, entry: Entry) -> None:
        line = entry.model_dump_json().encode() + b"\n"
        try:
            written = os.write(self._fd, line)
            if written != len(line):
                raise OSError(f"short write ({written} of {len(line)} bytes)")
        except OSError as exc:
            os.ftruncate(self._fd, self.offset)  # never leave half a line behind
            self.cut = True
            raise TaskGraphError(self.path, f"could not write the graph: {exc}") from exc
        self.offset += len(line)
        self.lines += 1

    def sync(self, group: GroupCommit, generation: int) -> None:
        """Return once every line this process wrote (or read) is on disk."""
        try:
            if self.cut:  # the mark may count bytes that were cut off: forget it
                group.forget(generation, self.offset)
                self.cut = False
            group.sync(self._fd, generation, self.offset)
        except OSError as exc:
            raise TaskGraphError(self.path, f"could not make the change durable: {exc}") from exc
