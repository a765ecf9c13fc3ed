"""The task graph in memory: tasks by id, dependency checks, and which task runs next."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path

from .errors import InvalidTaskError, UnknownTaskError
from .models import AgentTask, TaskStatus
from .storage import TaskEvent

_RunKey = tuple[int, datetime, str]


def _run_key(task: AgentTask) -> _RunKey:
    """Sorts the task to run first first: highest priority, then oldest; the id breaks
    ties in creation time."""
    return (-task.priority, task.created_at, task.id)


class TaskGraph:
    """The tasks of one graph, in the order they were added.

    A graph handed out by :meth:`TaskGraphStore.transaction` is one atomic step: the tasks
    :meth:`put` and the events :meth:`log` are written together when the block ends (and
    :meth:`rollback` undoes them when it raises); tasks are frozen, so changes are made by
    putting an updated copy (``task.model_copy(...)``). Pending tasks by type (in the order
    they run) and running tasks are indexed, so that a claim looks at the first ready task
    of its type, not at every task: the critical section of a claim stays short.
    """

    def __init__(self, path: str | Path, tasks: dict[str, AgentTask]) -> None:
        self.path = path
        self._tasks = tasks
        self._pending: dict[str, dict[str, AgentTask]] = {}
        self._queues: dict[str, list[_RunKey]] = {}  # pending tasks' keys, sorted
        self._running: dict[str, AgentTask] = {}
        for task in tasks.values():
            self._index(task)
        self.begin()

    def begin(self) -> None:
        """Start a new step: nothing written, logged or to undo yet."""
        self.written: dict[str, AgentTask] = {}
        self.events: list[TaskEvent] = []
        self._undo: dict[str, AgentTask | None] = {}

    def rollback(self) -> None:
        """Undo the puts of this step, newest first."""
        for task_id, old in reversed(self._undo.items()):
            self._unindex(self._tasks.pop(task_id))
            if old is not None:
                self._tasks[task_id] = old
                self._index(old)
        self.begin()

    @property
    def changed(self) -> bool:
        return bool(self.written)

    def __len__(self) -> int:
        return len(self._tasks)

    def __iter__(self) -> Iterator[AgentTask]:
        return iter(self._tasks.values())

    def __contains__(self, task_id: object) -> bool:
        return task_id in self._tasks

    def get(self, task_id: str) -> AgentTask:
        try:
            return self._tasks[task_id]
        except KeyError:
            raise UnknownTaskError(self.path, f"no task {task_id!r}") from None

    def load(self, task: AgentTask) -> None:
        """Take in a task someone else wrote (not part of this step)."""
        old = self._tasks.get(task.id)
        if old is not None:
            self._unindex(old)
        self._tasks[task.id] = task
        self._index(task)

    def put(self, task: AgentTask) -> AgentTask:
        """Add ``task``, or replace the task with its id, as part of this step."""
        if task.id not in self._undo:
            self._undo[task.id] = self._tasks.get(task.id)
        self.load(task)
        self.written[task.id] = task
        return task

    def log(self, event: TaskEvent) -> None:
        """Write ``event`` with this step's tasks."""
        self.events.append(event)

    def _index(self, task: AgentTask) -> None:
        if task.status is TaskStatus.PENDING:
            self._pending.setdefault(task.type, {})[task.id] = task
            bisect.insort(self._queues.setdefault(task.type, []), _run_key(task))
        elif task.status is TaskStatus.IN_PROGRESS:
            self._running[task.id] = task

    def _unindex(self, task: AgentTask) -> None:
        if self._pending.get(task.type, {}).pop(task.id, None) is not None:
            queue = self._queues[task.type]
            del queue[bisect.bisect_left(queue, _run_key(task))]
        self._running.pop(task.id, None)

    def add(self, tasks: Iterable[AgentTask]) -> None:
        """Put new tasks; ids must be new, links known (or among them), no cycle."""
        tasks = list(tasks)
        for task in tasks:
            if task.id in self._tasks:
                raise InvalidTaskError(self.path, f"a task with id {task.id!r} already exists")
            self.put(task)
        self.check_links(task.id for task in tasks)

    def in_progress(self) -> list[AgentTask]:
        return list(self._running.values())

    def prunable(self, cutoff: datetime) -> list[str]:
        """Finished tasks last changed before ``cutoff`` that no unfinished task needs."""
        finished = (TaskStatus.COMPLETED, TaskStatus.FAILED)
        needed = {
            link
            for task in self._tasks.values()
            if task.status not in finished
            for link in (*task.dependency_ids, task.parent_id)
        }
        return [
            task.id
            for task in self._tasks.values()
            if task.status in finished and task.updated_at < cutoff and task.id not in needed
        ]

    def unmet_dependencies(self, task: AgentTask) -> list[str]:
        """Ids of the dependencies of ``task`` that are not COMPLETED (yet)."""
        unmet = []
        for dep_id in task.dependency_ids:
            dep = self._tasks.get(dep_id)
            if dep is None or dep.status is not TaskStatus.COMPLETED:
                unmet.append(dep_id)
        return unmet

    def next_ready(self, task_type: str) -> AgentTask | None:
        """The PENDING task of ``task_type`` to run first among those whose dependencies
        are all COMPLETED: highest priority, then oldest."""
        pending = self._pending.get(task_type, {})
        for _, _, task_id in self._queues.get(task_type, ()):
            task = pending[task_id]
            if not (task.dependency_ids and self.unmet_dependencies(task)):
                return task
        return None

    def check_links(self, task_ids: Iterable[str]) -> None:
        """Refuse dependencies or parents that do not exist, and dependency cycles."""
        task_ids = list(task_ids)
        for task_id in task_ids:
            task = self.get(task_id)
            missing = [dep for dep in task.dependency_ids if dep not in self._tasks]
            if missing:
                raise InvalidTaskError(
                    self.path,
                    f"task {task_id!r} depends on unknown task(s) "
                    + ", ".join(repr(dep) for dep in missing),
                )
            if task.parent_id is not None and task.parent_id not in self._tasks:
                raise InvalidTaskError(
                    self.path, f"task {task_id!r} has unknown parent {task.parent_id!r}"
                )
        cycle = self._find_cycle(task_ids)
        if cycle:
            raise InvalidTaskError(self.path, "dependency cycle: " + " -> ".join(cycle))

    def _find_cycle(self, starts: list[str]) -> list[str] | None:
        # Iterative depth-first search: long dependency chains must not hit the recursion limit.
        done: set[str] = set()
        for start in starts:
            if start in done:
                continue
            path: list[str] = [start]
            on_path = {start}
            stack: list[Iterator[str]] = [iter(self._tasks[start].dependency_ids)]
            while stack:
                dep = next(stack[-1], None)
                if dep is None:
                    stack.pop()
                    finished = path.pop()
                    on_path.discard(finished)
                    done.add(finished)
                    continue
                if dep in on_path:
                    return [*path[path.index(dep) :], dep]
                if dep in done:
                    continue
                path.append(dep)
                on_path.add(dep)
                # A store may hand over only part of the graph: what is not here is a leaf.
                known = self._tasks.get(dep)
                stack.append(iter(known.dependency_ids if known is not None else ()))
        return None
