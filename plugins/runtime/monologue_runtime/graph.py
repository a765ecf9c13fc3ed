"""The task graph in memory: tasks by id, dependency checks, and which task runs next."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from operator import attrgetter
from pathlib import Path

from .errors import InvalidTaskError, UnknownTaskError
from .models import AgentTask, TaskStatus

# Among tasks of equal priority the oldest runs first; the id breaks ties in creation time.
_AGE = attrgetter("created_at", "id")


class TaskGraph:
    """The tasks of one graph file, in the order they were added.

    A graph handed out by :meth:`TaskGraphStore.transaction` is written back when the block
    ends if :meth:`put` was called; tasks are frozen, so changes are made by putting an
    updated copy (``task.model_copy(update=...)``).
    """

    def __init__(self, path: Path, tasks: dict[str, AgentTask]) -> None:
        self.path = path
        self._tasks = tasks
        self.changed = False

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

    def put(self, task: AgentTask) -> AgentTask:
        """Add ``task``, or replace the task with its id."""
        self._tasks[task.id] = task
        self.changed = True
        return task

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
        pending = TaskStatus.PENDING  # looked up once: this loop runs on every claim
        ready = [
            task
            for task in self._tasks.values()
            if task.status is pending
            and task.type == task_type
            and not (task.dependency_ids and self.unmet_dependencies(task))
        ]
        if not ready:
            return None
        top = max(task.priority for task in ready)
        return min((task for task in ready if task.priority == top), key=_AGE)

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
                stack.append(iter(self._tasks[dep].dependency_ids))
        return None
