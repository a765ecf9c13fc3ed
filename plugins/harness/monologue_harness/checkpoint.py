"""The harness's checkpoint: each task's state, written atomically after every task, so a
run killed at any point resumes without running a validated task again."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from monologue.files import write_atomically

from .errors import HarnessError
from .models import RunUsage

__all__ = ["Checkpoint", "TaskState", "default_checkpoint_path", "tasks_digest"]

TaskStatus = Literal["pending", "validated", "failed", "blocked", "complete", "not_run"]


class TaskState(BaseModel):
    status: TaskStatus = "pending"
    attempts: int = 0
    retries: int = 0
    reason: str | None = None
    usage: RunUsage = Field(default_factory=RunUsage)


class Checkpoint(BaseModel):
    """Owned by one :class:`~monologue_harness.TaskHarness` run; saved by :meth:`save`."""

    tasks_file: str
    tasks_digest: str
    tasks: dict[str, TaskState] = Field(default_factory=dict)

    def state(self, task_id: str) -> TaskState:
        return self.tasks.setdefault(task_id, TaskState())

    def save(self, path: Path) -> None:
        write_atomically(path, self.model_dump_json(indent=1))

    @classmethod
    def load(cls, path: Path, tasks_file: Path, digest: str) -> Checkpoint:
        """The checkpoint at ``path``; a fresh one when there is none. A checkpoint of another
        version of the tasks file is an error, never silently reused."""
        if not path.is_file():
            return cls(tasks_file=str(tasks_file), tasks_digest=digest)
        try:
            loaded = cls.model_validate_json(path.read_bytes())
        except ValidationError as exc:
            first = exc.errors()[0]
            raise HarnessError(
                f"checkpoint {path}: {'.'.join(map(str, first['loc']))}: {first['msg']}"
            ) from None
        if loaded.tasks_digest != digest:
            raise HarnessError(
                f"checkpoint {path} was written for another version of {tasks_file}; "
                "delete it to start over"
            )
        return loaded


def tasks_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def default_checkpoint_path(tasks_file: Path, *, replay: bool = False) -> Path:
    """``<data_dir>/harness/<name>-<hash of its absolute path>.json``; a replay's is
    ``…-replay.json``, so that a live ``--resume`` never skips tasks only a replay did."""
    from monologue import load_config

    where = hashlib.sha256(str(tasks_file.resolve()).encode("utf-8")).hexdigest()[:12]
    name = f"{tasks_file.stem}-{where}{'-replay' if replay else ''}.json"
    return load_config().resolved_data_dir() / "harness" / name
