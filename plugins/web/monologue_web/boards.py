"""The optional panels of a session page: the runtime's task graph and the skills' status
board, each shown only where its plugin is installed and has something to show.

Both are read through their plugin's public API, with the server's configuration
(``runtime_store``/``data_dir`` for the graph, ``state_file`` for the board), and only read.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from pydantic import BaseModel

__all__ = ["Boards", "TaskRow", "boards_for"]

log = logging.getLogger("monologue.web")

_MAX_TASKS: Final = 100


class TaskRow(BaseModel):
    """One task as the page lists it."""

    id: str
    type: str
    status: str
    owner: str | None
    depends_on: list[str]
    current: bool
    """The session's own task."""


class Boards(BaseModel):
    """``None`` for a panel whose plugin is not installed or has nothing to show."""

    tasks: list[TaskRow] | None = None
    tasks_problem: str | None = None
    status: dict[str, Any] | None = None


def boards_for(task_id: str | None) -> Boards:
    boards = Boards(status=_status_board())
    try:
        boards.tasks = _task_rows(task_id)
    except Exception as exc:  # a store that cannot be read (a bad URL, a database down)
        log.warning("the task graph cannot be read: %s", exc)
        boards.tasks_problem = f"the task graph cannot be read: {exc}"
    return boards


def _task_rows(task_id: str | None) -> list[TaskRow] | None:
    try:
        from monologue_runtime import open_store
    except ImportError:
        return None
    store = open_store()
    try:
        tasks = store.list()
    finally:
        store.close()
    if not tasks:
        return None
    # The most recently changed first; the session's own task always among them.
    tasks.sort(key=lambda task: (task.id != task_id, -task.updated_at.timestamp()))
    return [
        TaskRow(
            id=task.id,
            type=task.type,
            status=str(task.status),
            owner=task.owner,
            depends_on=list(task.dependency_ids),
            current=task.id == task_id,
        )
        for task in tasks[:_MAX_TASKS]
    ]


def _status_board() -> dict[str, Any] | None:
    try:
        from monologue_skills import status_board
    except ImportError:
        return None
    try:
        return status_board()
    except Exception as exc:  # a damaged state file must not break the page
        log.warning("the status board cannot be read: %s", exc)
        return None
