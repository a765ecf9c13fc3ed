"""Errors of the task graph. Every message starts with where the graph is: its file, or
its database URL without the password."""

from __future__ import annotations

from pathlib import Path

from monologue.errors import MonologueError


class TaskGraphError(MonologueError):
    """Something about one graph file went wrong; reads ``<path>: <problem>``."""

    def __init__(self, path: str | Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = Path(path)
        self.problem = problem


class GraphFileError(TaskGraphError, ValueError):
    """The graph file cannot be read as a task graph. It is left exactly as it was."""


class InvalidTaskError(TaskGraphError, ValueError):
    """A change would break the graph (unknown dependency, duplicate id, cycle, bad field)."""


class UnknownTaskError(TaskGraphError, LookupError):
    """No task with that id in the graph."""


class OwnershipError(TaskGraphError):
    """An agent reported on a task it does not hold (finished, or reclaimed from it)."""


class StoreUnavailableError(TaskGraphError):
    """The store cannot be reached (database down, credentials refused, wrong URL)."""


class GraphLockTimeout(TaskGraphError):
    """The graph's lock stayed held by someone else for longer than the lock timeout."""
