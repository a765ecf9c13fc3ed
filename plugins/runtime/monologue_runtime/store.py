"""``TaskGraphStore``: the task graph in files of the data folder, shared by processes.

The graph is a snapshot (``tasks.graph.json``, see :mod:`.snapshot`) plus a journal of every
step since (``tasks.journal.<generation>.jsonl``, see :mod:`.journal`). Each process keeps
the graph in memory and, holding the lock (``tasks.graph.json.lock``), reads only the lines
others appended since its last step, decides, and appends one line. The critical section no
longer grows with the graph, and the fsync happens after the lock is let go, so processes
share flushes: with four processes the graph is at least as fast as with one, where
rewriting the whole file under the lock made it slower.

When the journal outgrows the graph, it is compacted into a new snapshot; the old journal
moves to ``tasks.history/`` (it is the lifecycle log, see :meth:`TaskGraphStore.events`).
``prune`` moves finished tasks to ``tasks.archive.jsonl``.
"""

from __future__ import annotations

import builtins
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import JsonValue

from monologue.events import utcnow
from monologue.settings import MonologueConfig, load_config

from .errors import GraphLockTimeout, TaskGraphError
from .files import private_folder
from .flock import GraphLock, LockTimeout
from .graph import TaskGraph
from .graph_files import GraphFiles
from .journal import Entry
from .models import AgentError, AgentResult, AgentTask, TaskStatus
from .storage import Change, ClaimRules, TaskEvent
from .task_fields import new_task, updated_task
from .transitions import (
    claimed,
    completed,
    failed,
    held,
    is_stale,
    reclaimed,
    released,
    stale_cutoff,
    updated,
)

__all__ = ["DEFAULT_LOCK_TIMEOUT_S", "GRAPH_FILE", "TaskGraphStore"]

GRAPH_FILE = "tasks.graph.json"
DEFAULT_LOCK_TIMEOUT_S = 30.0
_WAIT_POLL_S = 0.02


class TaskGraphStore:
    """The task graph in ``<data_dir>``: the default :class:`~monologue_runtime.TaskStore`.

    ``data_dir`` defaults to the configured data folder (``data_dir`` in the configuration,
    ``MONOLOGUE_DATA_DIR``, else ``$XDG_DATA_HOME/monologue``), resolved when the store is
    created. Nothing is created on disk until the first write.
    """

    def __init__(
        self,
        data_dir: str | Path | None = None,
        *,
        config: MonologueConfig | None = None,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT_S,
    ) -> None:
        if data_dir is None:
            data_dir = (config or load_config()).resolved_data_dir()
        self.data_dir = Path(data_dir).expanduser()
        self.path = self.data_dir / GRAPH_FILE
        self.lock_path = self.data_dir / f"{GRAPH_FILE}.lock"
        self.lock_timeout = lock_timeout
        self._lock = GraphLock(self.lock_path, lock_timeout)
        self._files = GraphFiles(self.path)
        self._mutex = threading.RLock()  # one step at a time per process: the cache is shared
        self._swept = False

    def __repr__(self) -> str:
        return f"<TaskGraphStore {self.path}>"

    @property
    def location(self) -> str:
        return str(self.path)

    def close(self) -> None:
        with self._mutex:
            self._files.close_all()
            self._lock.close()

    # -- reads: no lock, lines are only ever appended whole -----------------------------

    def read(self) -> TaskGraph:
        """The graph as it is on disk now (nothing on disk is an empty graph). The tasks are
        copies: this process's own graph never leaks to a caller who changes one."""
        with self._mutex:
            tasks = self._files.refresh(locked=False)
            return TaskGraph(self.path, {task.id: _copy(task) for task in tasks})

    def get(self, task_id: str) -> AgentTask:
        """The task with ``task_id``; :class:`UnknownTaskError` if there is none."""
        return self.read().get(task_id)

    def list(
        self, *, status: TaskStatus | str | None = None, type: str | None = None
    ) -> builtins.list[AgentTask]:
        """Tasks in the order they were added, optionally only one status or type."""
        wanted = TaskStatus(status) if status is not None else None
        return [
            task
            for task in self.read()
            if (wanted is None or task.status is wanted) and (type is None or task.type == type)
        ]

    def unmet_dependencies(self, task: AgentTask) -> builtins.list[str]:
        return self.read().unmet_dependencies(task)

    def events(self, task_id: str | None = None) -> builtins.list[TaskEvent]:
        """The lifecycle log, read under the lock: a compaction meanwhile could otherwise
        move a journal between being listed and being read."""
        if not self.data_dir.is_dir():
            return []
        with self._mutex:
            self._acquire()
            try:
                log = self._files.all_events()
            finally:
                self._lock.release()
        return [e for e in log if task_id is None or e.task_id == task_id]

    def wait_for_work(self, timeout: float) -> bool:
        """Watch the files (there is no one to notify us) until they change or time is up."""
        deadline = time.monotonic() + timeout
        before = self._files.fingerprint()
        while time.monotonic() < deadline:
            time.sleep(min(_WAIT_POLL_S, max(0.0, deadline - time.monotonic())))
            if self._files.fingerprint() != before:
                return True
        return False

    # -- steps, under the lock ----------------------------------------------------------

    @contextmanager
    def transaction(self, *, durable: bool = True) -> Iterator[TaskGraph]:
        """Hold the lock, yield the current graph; what was put and logged is written as
        one journal line when the block ends (nothing, when it raises), and flushed to disk
        before this returns unless ``durable`` is false. Keep the block short: every other
        process waits for it."""
        with self._mutex:
            try:
                private_folder(self.data_dir)
            except OSError as exc:
                raise TaskGraphError(self.path, f"cannot create the data folder: {exc}") from exc
            # Catch up with others' lines before taking the lock (lines never change once
            # written), so that under the lock only the last few are left to read.
            self._files.refresh(locked=False)
            self._acquire()
            try:
                if not self._swept:
                    self._files.sweep()
                    self._swept = True
                graph = self._files.refresh(locked=True)
                graph.begin()
                try:
                    yield graph
                    if graph.changed or graph.events:
                        self._files.append(
                            Entry(tasks=builtins.list(graph.written.values()), events=graph.events)
                        )
                except BaseException:
                    graph.rollback()
                    raise
            finally:
                self._lock.release()
            if durable:
                self._files.sync()

    def _acquire(self) -> None:
        try:
            self._lock.acquire()
        except LockTimeout:
            raise GraphLockTimeout(
                self.path,
                f"could not take the lock {self.lock_path.name} within "
                f"{self.lock_timeout:g} s (another process holds it)",
            ) from None

    def add(self, *tasks: AgentTask) -> builtins.list[AgentTask]:
        """Add new tasks in one step; their dependencies and parents must exist (or be
        among them), ids must be new, and no dependency cycle may appear."""
        with self.transaction() as graph:
            graph.add(tasks)
        return builtins.list(tasks)

    def create(self, type: str, **fields: Any) -> AgentTask:
        """Add one task of ``type``; ``fields`` are :class:`AgentTask` fields
        (``input``, ``priority``, ``dependency_ids``, ``parent_id``, ``id``...)."""
        return self.add(new_task(self.location, type, fields))[0]

    def update(self, task_id: str, **changes: Any) -> AgentTask:
        """Change fields of a task (validated as a whole); returns the stored task."""
        with self.transaction() as graph:
            task = graph.put(updated_task(self.location, graph.get(task_id), changes))
            if {"dependency_ids", "parent_id"} & changes.keys():
                graph.check_links([task_id])
        return task

    def claim(self, agent_id: str, agent_type: str, rules: ClaimRules, now: datetime) -> Change:
        changes = self.claim_batch(agent_id, agent_type, rules, now, 1)
        return changes[0] if changes else Change()

    def claim_batch(
        self, agent_id: str, agent_type: str, rules: ClaimRules, now: datetime, limit: int
    ) -> builtins.list[Change]:
        # Not flushed: a claim lost in a crash of the machine was held by agents that died
        # with it, and the task is simply PENDING again. It reaches the disk with the next
        # flushed line (a flush covers everything written before it in the file).
        with self.transaction(durable=False) as graph:
            reclaimed_tasks = self._reclaim(graph, rules, now, agent_id)
            tasks: builtins.list[AgentTask] = []
            while len(tasks) < limit and (task := graph.next_ready(agent_type)) is not None:
                tasks.append(graph.put(claimed(task, agent_id, now)))
        if not tasks:
            return [_detached(None, reclaimed_tasks, graph.events)] if reclaimed_tasks else []
        first = _detached(tasks[0], reclaimed_tasks, graph.events)
        return [first, *(_detached(task, [], []) for task in tasks[1:])]

    def release(
        self, task_ids: builtins.list[str], agent_id: str, now: datetime
    ) -> builtins.list[AgentTask]:
        with self.transaction() as graph:
            tasks = [
                graph.put(released(task, now))
                for task_id in task_ids
                if task_id in graph
                and (task := graph.get(task_id)).status is TaskStatus.IN_PROGRESS
                and task.owner == agent_id
            ]
        return [_copy(task) for task in tasks]

    def heartbeat(
        self, task_id: str, agent_id: str, now: datetime, update: dict[str, JsonValue]
    ) -> Change:
        with self.transaction() as graph:
            task, event = updated(
                held(graph.get(task_id), agent_id, self.location), agent_id, now, update
            )
            graph.put(task)
            graph.log(event)
        return _detached(task, [], [event])

    def complete(self, task_id: str, agent_id: str, result: AgentResult, now: datetime) -> Change:
        with self.transaction() as graph:
            task, event = completed(
                held(graph.get(task_id), agent_id, self.location), agent_id, result, now
            )
            graph.put(task)
            graph.log(event)
        return _detached(task, [], [event])

    def fail(
        self, task_id: str, agent_id: str, error: AgentError, rules: ClaimRules, now: datetime
    ) -> Change:
        with self.transaction() as graph:
            task, event = failed(
                held(graph.get(task_id), agent_id, self.location), agent_id, error, rules, now
            )
            graph.put(task)
            graph.log(event)
        return _detached(task, [], [event])

    def reclaim_stale(self, rules: ClaimRules, now: datetime, by: str) -> Change:
        with self.transaction() as graph:
            tasks = self._reclaim(graph, rules, now, by)
        return _detached(None, tasks, graph.events)

    def prune(self, older_than: timedelta, now: datetime | None = None) -> builtins.list[str]:
        """Move finished tasks to ``tasks.archive.jsonl`` (see :class:`TaskStore`)."""
        cutoff = (now or utcnow()) - older_than
        with self.transaction() as graph:
            ids = graph.prunable(cutoff)
            if ids:
                self._files.archive(graph, ids)
        return ids

    def archived(self) -> builtins.list[AgentTask]:
        """Tasks moved out of the graph by :meth:`prune`, oldest first."""
        return self._files.read_archive()

    @staticmethod
    def _reclaim(
        graph: TaskGraph, rules: ClaimRules, now: datetime, by: str
    ) -> builtins.list[AgentTask]:
        cutoff = stale_cutoff(rules, now)
        tasks = []
        for task in graph.in_progress():
            if is_stale(task, cutoff):
                stored, event = reclaimed(task, by, rules, now)
                tasks.append(graph.put(stored))
                graph.log(event)
        return tasks


def _detached(
    task: AgentTask | None,
    reclaimed_tasks: builtins.list[AgentTask],
    events: builtins.list[TaskEvent],
) -> Change:
    """A change whose tasks are copies: the ones in this process's graph are shared, and a
    caller changing a task's ``input`` must not change the graph."""
    return Change(
        task=None if task is None else _copy(task),
        reclaimed=[_copy(t) for t in reclaimed_tasks],
        events=events,
    )


def _copy(task: AgentTask) -> AgentTask:
    # A JSON round trip: several times cheaper than model_copy(deep=True) for these models.
    return AgentTask.model_validate_json(task.model_dump_json())
