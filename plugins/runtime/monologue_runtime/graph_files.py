"""The files of one graph and this process's copy of it: snapshot, journal, history, archive.

Only :class:`~monologue_runtime.TaskGraphStore` uses this, and calls the methods marked
"under the lock" only while it holds the graph's lock.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import ValidationError

from monologue.files import fsync_folder, is_leftover_temp

from .errors import TaskGraphError
from .files import open_private, private_folder
from .graph import TaskGraph
from .group_commit import GroupCommit
from .journal import Entry, JournalFile, journal_name
from .models import AgentTask
from .snapshot import read_snapshot, write_snapshot
from .storage import TaskEvent

__all__ = ["GraphFiles"]

HISTORY = "tasks.history"
ARCHIVE = "tasks.archive.jsonl"
# Compact once the journal holds more lines than this, or than the graph has tasks, so
# that replaying it never costs more than reading the snapshot.
_COMPACT_MIN_LINES = 2000


class GraphFiles:
    """``tasks.graph.json`` and its journals, and the graph they add up to."""

    def __init__(self, snapshot: Path) -> None:
        self.snapshot = snapshot
        self.folder = snapshot.parent
        self.history = self.folder / HISTORY
        self._snapshot_id: tuple[int, int] | None = None
        self._generation = 0
        self._graph = TaskGraph(snapshot, {})
        self._journal: JournalFile | None = None
        self._group = GroupCommit(self.folder / f"{snapshot.name}.flush")

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None
        self._snapshot_id = None

    def fingerprint(self) -> tuple[object, ...]:
        """Changes whenever anyone writes a step."""
        try:
            journal = os.stat(self.folder / journal_name(self._generation)).st_size
        except FileNotFoundError:
            journal = -1
        return (self._stat_snapshot(), journal)

    # -- this process's copy ------------------------------------------------------------

    def refresh(self, *, locked: bool) -> TaskGraph:
        """This process's graph, with every line appended so far."""
        while True:
            snapshot_id = self._stat_snapshot()
            if locked and self._journal is not None and not self._journal.writable:
                try:
                    self._journal.make_writable()
                except FileNotFoundError:
                    self.close()
            if snapshot_id != self._snapshot_id or self._journal is None:
                self.close()
                generation, tasks = read_snapshot(self.snapshot)
                self._generation, self._graph = generation, TaskGraph(self.snapshot, tasks)
                self._snapshot_id = snapshot_id
                try:
                    self._journal = JournalFile(self._journal_path(), writable=locked)
                except FileNotFoundError:  # nothing written since, or compacted meanwhile
                    if self._stat_snapshot() != snapshot_id:
                        continue
                    return self._graph
            for entry in self._journal.read_new(cut_torn_tail=locked):
                for task in entry.tasks:
                    self._graph.load(task)
            return self._graph

    def append(self, entry: Entry) -> None:
        """Under the lock: write one step (already in the graph), then compact if the
        journal has grown enough."""
        assert self._journal is not None
        self._journal.append(entry)
        if self._journal.lines > max(_COMPACT_MIN_LINES, len(self._graph)):
            self._compact(list(self._graph))

    def sync(self) -> None:
        """After the lock: make this process's last line durable (and everyone's before),
        with one flush shared by the processes waiting at the same time."""
        if self._journal is not None and self._journal.writable:
            self._journal.sync(self._group, self._generation)

    def close_all(self) -> None:
        self.close()
        self._group.close()

    def sweep(self) -> None:
        """Under the lock: remove what a crash left behind. Temporary files are only
        written under the lock, so any seen now is a leftover; a journal older than the
        snapshot was compacted but not yet moved to the history."""
        generation, _ = read_snapshot(self.snapshot)
        if self._stat_snapshot() is None:  # a new graph: say what the folder holds
            write_snapshot(self.snapshot, generation, [])
        for path in self.folder.iterdir():
            if is_leftover_temp(path, self.snapshot):
                path.unlink(missing_ok=True)
            elif path.name.startswith("tasks.journal."):
                number = path.name.split(".")[2]
                if number.isdigit() and int(number) < generation:
                    self._to_history(path)

    # -- compaction, history, archive -----------------------------------------------------

    def _compact(self, tasks: list[AgentTask]) -> None:
        generation = self._generation + 1
        write_snapshot(self.snapshot, generation, tasks)
        old = self._journal_path()
        self.close()
        self._to_history(old)

    def archive(self, graph: TaskGraph, task_ids: list[str]) -> None:
        """Under the lock: move ``task_ids`` out of the graph into the archive. The archive
        is written first; if the process dies before the snapshot, the next prune writes
        those tasks again and :meth:`read_archive` keeps one copy of each."""
        path = self.folder / ARCHIVE
        lines = b"".join(graph.get(i).model_dump_json().encode() + b"\n" for i in task_ids)
        fd = open_private(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            os.write(fd, lines)
            os.fsync(fd)
        except OSError as exc:
            raise TaskGraphError(path, f"could not archive tasks: {exc}") from exc
        finally:
            os.close(fd)
        gone = set(task_ids)
        self._compact([task for task in graph if task.id not in gone])

    def read_archive(self) -> list[AgentTask]:
        path = self.folder / ARCHIVE
        tasks: dict[str, AgentTask] = {}
        try:
            lines = path.read_bytes().splitlines()
        except FileNotFoundError:
            return []
        for number, line in enumerate(lines, start=1):
            try:
                task = AgentTask.model_validate_json(line)
            except ValidationError:
                raise TaskGraphError(path, f"line {number} is not a task") from None
            tasks[task.id] = task
        return list(tasks.values())

    def all_events(self) -> list[TaskEvent]:
        """The lifecycle log: the journals in the history, then the current one."""
        paths = sorted(
            self.history.glob("tasks.journal.*.jsonl") if self.history.is_dir() else [],
            key=lambda p: int(p.name.split(".")[2]),
        )
        events: list[TaskEvent] = []
        for path in [*paths, self.folder / journal_name(read_snapshot(self.snapshot)[0])]:
            try:
                journal = JournalFile(path, writable=False)
            except FileNotFoundError:
                continue
            try:
                for entry in journal.read_new():
                    events.extend(entry.events)
            finally:
                journal.close()
        return events

    def _to_history(self, journal: Path) -> None:
        private_folder(self.history)
        try:
            os.replace(journal, self.history / journal.name)
        except FileNotFoundError:
            return
        fsync_folder(self.folder)

    def _journal_path(self) -> Path:
        return self.folder / journal_name(self._generation)

    def _stat_snapshot(self) -> tuple[int, int] | None:
        try:
            info = os.stat(self.snapshot)
        except FileNotFoundError:
            return None
        return (info.st_ino, info.st_mtime_ns)
