"""``tasks.graph.json``: the graph as of the start of one journal generation.

::

    {"format":2,"generation":7,"tasks":[
    {"id":"01J...","type":"build",...}
    ]}

Written only when the journal is compacted: to a temporary file in the same folder,
fsynced and renamed over the old one, so a reader sees a whole snapshot, old or new. A
file that cannot be read as a graph is refused, never overwritten. Format 1 (the same
without ``generation``) is read as generation 0.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from monologue.events import describe_validation_error
from monologue.files import write_atomically

from .errors import GraphFileError, TaskGraphError
from .models import AgentTask

__all__ = ["GRAPH_FORMAT", "GraphFile", "read_snapshot", "write_snapshot"]

GRAPH_FORMAT = 2
"""Version of the snapshot's layout, written in every file."""
_READABLE = (1, GRAPH_FORMAT)
"""In the names of files being written; any seen while the lock is held is a leftover."""


class GraphFile(BaseModel):
    """The JSON document in ``tasks.graph.json``."""

    model_config = ConfigDict(extra="forbid")

    format: int = GRAPH_FORMAT
    generation: int = 0
    tasks: list[AgentTask] = []


def read_snapshot(path: Path) -> tuple[int, dict[str, AgentTask]]:
    """(generation, tasks by id) of the snapshot at ``path``; a missing file is empty."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return 0, {}
    except OSError as exc:
        raise GraphFileError(path, f"cannot be read: {exc}") from exc
    try:
        document = GraphFile.model_validate_json(raw)
    except ValidationError as exc:
        raise _refusal(path, _explain(raw, exc)) from None
    if document.format not in _READABLE:
        raise _refusal(path, _newer_format(document.format))
    tasks: dict[str, AgentTask] = {}
    for task in document.tasks:
        if task.id in tasks:
            raise _refusal(path, f"task id {task.id!r} appears twice")
        tasks[task.id] = task
    return document.generation, tasks


def write_snapshot(path: Path, generation: int, tasks: Iterable[AgentTask]) -> None:
    """Replace the snapshot at ``path`` whole and durably."""
    lines = b",\n".join(task.model_dump_json().encode() for task in tasks)
    raw = (
        b'{"format":%d,"generation":%d,"tasks":[\n' % (GRAPH_FORMAT, generation)
        + (lines + b"\n" if lines else b"")
        + b"]}\n"
    )
    try:
        write_atomically(path, raw)
    except OSError as exc:
        raise TaskGraphError(path, f"could not write the graph: {exc}") from exc


def _refusal(path: Path, problem: str) -> GraphFileError:
    return GraphFileError(
        path,
        f"not a readable task graph: {problem}. The file was left untouched; "
        "repair it or move it aside",
    )


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
        f"graph format {version} is not one this version of monologue-runtime reads "
        f"({', '.join(map(str, _READABLE))})"
    )
