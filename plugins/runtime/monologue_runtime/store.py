"""``TaskGraphStore``: the task graph as one JSON file that several processes share.

Every read-modify-write holds one lock, on a separate file (``tasks.graph.json.lock``), for
the whole cycle. The graph file itself is never opened for writing: a new version is
written to a temporary file in the same folder, flushed, fsynced and renamed over it (then
the folder is fsynced), so anyone reading it, locked or not, sees a complete graph, old or
new. A graph file that cannot be read as a graph is refused, never overwritten.
"""

from __future__ import annotations

import builtins
import json
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout
from pydantic import ValidationError

from monologue.config import MonologueConfig, load_config
from monologue.events import describe_validation_error, utcnow

from .codec import GRAPH_FORMAT, GraphCodec
from .errors import GraphFileError, GraphLockTimeout, InvalidTaskError, TaskGraphError
from .graph import TaskGraph
from .models import AgentTask, TaskStatus

GRAPH_FILE = "tasks.graph.json"
DEFAULT_LOCK_TIMEOUT_S = 30.0
# filelock retries a held lock by polling; its 50 ms default would cap a busy graph at a
# few dozen operations per second.
_LOCK_POLL_S = 0.002
_FIXED_FIELDS = frozenset({"id", "created_at"})


class TaskGraphStore:
    """The task graph in ``<data_dir>/tasks.graph.json``.

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
        self._lock = FileLock(str(self.lock_path), timeout=lock_timeout, poll_interval=_LOCK_POLL_S)
        # Transactions only: tasks read without the lock are parsed afresh, so that a
        # caller's changes to a task it was handed can never leak into a write.
        self._codec = GraphCodec()

    def __repr__(self) -> str:
        return f"<TaskGraphStore {self.path}>"

    # -- reads: no lock, the file is only ever replaced whole ---------------------------

    def read(self) -> TaskGraph:
        """The graph as it is on disk now (a missing file is an empty graph)."""
        raw = self._read_bytes()
        return TaskGraph(self.path, {} if raw is None else self._parse(raw))

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

    # -- read-modify-write, under the lock ----------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[TaskGraph]:
        """Hold the lock, yield the current graph, write it back if it was changed.

        Nothing is written when the block raises. Keep the block short: every other
        process waits for it.
        """
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise TaskGraphError(self.path, f"cannot create the data folder: {exc}") from exc
        try:
            self._lock.acquire()
        except Timeout:
            raise GraphLockTimeout(
                self.path,
                f"could not take the lock {self.lock_path.name} within {self.lock_timeout:g} s "
                "(another process holds it)",
            ) from None
        try:
            raw = self._read_bytes()
            graph = TaskGraph(self.path, {} if raw is None else self._parse(raw, self._codec))
            yield graph
            if graph.changed:
                self._write(graph)
        finally:
            self._lock.release()

    def add(self, *tasks: AgentTask) -> builtins.list[AgentTask]:
        """Add new tasks in one write; their dependencies and parents must exist (or be
        among them), ids must be new, and no dependency cycle may appear."""
        with self.transaction() as graph:
            for task in tasks:
                if task.id in graph:
                    raise InvalidTaskError(self.path, f"a task with id {task.id!r} already exists")
                graph.put(task)
            graph.check_links(task.id for task in tasks)
        return builtins.list(tasks)

    def create(self, type: str, **fields: Any) -> AgentTask:
        """Add one task of ``type``; ``fields`` are :class:`AgentTask` fields
        (``input``, ``priority``, ``dependency_ids``, ``parent_id``, ``id``...)."""
        now = utcnow()
        task = self._validated(
            {"created_at": now, "updated_at": now, **fields, "type": type}, what="new task"
        )
        return self.add(task)[0]

    def update(self, task_id: str, **changes: Any) -> AgentTask:
        """Change fields of a task (validated as a whole); returns the stored task."""
        fixed = sorted(_FIXED_FIELDS & changes.keys())
        if fixed:
            raise InvalidTaskError(
                self.path, f"task {task_id!r}: {', '.join(fixed)} cannot be changed"
            )
        with self.transaction() as graph:
            current = graph.get(task_id)
            merged = {**current.model_dump(), **changes, "updated_at": utcnow()}
            task = graph.put(self._validated(merged, what=f"task {task_id!r}"))
            if {"dependency_ids", "parent_id"} & changes.keys():
                graph.check_links([task_id])
        return task

    # -- plumbing -----------------------------------------------------------------------

    def _validated(self, values: dict[str, Any], what: str) -> AgentTask:
        try:
            return AgentTask.model_validate(values)
        except ValidationError as exc:
            _, message = describe_validation_error(exc)
            raise InvalidTaskError(self.path, f"{what}: {message}") from None

    def _read_bytes(self) -> bytes | None:
        try:
            return self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise GraphFileError(self.path, f"cannot be read: {exc}") from exc

    def _parse(self, raw: bytes, codec: GraphCodec | None = None) -> dict[str, AgentTask]:
        try:
            document = (codec or GraphCodec()).decode(raw)
        except ValidationError as exc:
            raise self._refusal(_explain(raw, exc)) from None
        if document.format != GRAPH_FORMAT:
            raise self._refusal(_newer_format(document.format))
        tasks: dict[str, AgentTask] = {}
        for task in document.tasks:
            if task.id in tasks:
                raise self._refusal(f"task id {task.id!r} appears twice")
            tasks[task.id] = task
        return tasks

    def _refusal(self, problem: str) -> GraphFileError:
        return GraphFileError(
            self.path,
            f"not a readable task graph: {problem}. The file was left untouched; "
            "repair it or move it aside",
        )

    def _write(self, graph: TaskGraph) -> None:
        raw = self._codec.encode(graph)
        temp = self.path.with_name(f"{GRAPH_FILE}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
        try:
            with open(temp, "xb") as handle:
                handle.write(raw)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, self.path)
            _fsync_folder(self.data_dir)
        except OSError as exc:
            with suppress(FileNotFoundError):
                temp.unlink()
            raise TaskGraphError(self.path, f"could not write the graph: {exc}") from exc


def _explain(raw: bytes, exc: ValidationError) -> str:
    try:
        document = json.loads(raw)
    except ValueError as bad:
        return f"not valid JSON ({bad})"
    version = document.get("format") if isinstance(document, dict) else None
    if isinstance(version, int) and version > GRAPH_FORMAT:
        return _newer_format(version)
    return describe_validation_error(exc)[1]


def _newer_format(version: int) -> str:
    return (
        f"graph format {version} is not {GRAPH_FORMAT}, the one this version of "
        "monologue-runtime reads"
    )


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX; Windows cannot open a folder)."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
