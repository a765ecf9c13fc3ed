"""The graph file's bytes: plain JSON, one task per line.

::

    {"format":1,"tasks":[
    {"id":"01J...","type":"build",...},
    {"id":"01J...","type":"test",...}
    ]}

Every read-modify-write handles the whole graph, but usually changes one task. With one
task per line, :class:`GraphCodec` remembers which line bytes made which task (and which task
made which line) and parses or serializes only the lines that changed; the cost that grows
with the graph is splitting and looking up lines, not pydantic. Any other layout of the same
JSON (a hand-edited or pretty-printed file) is read by a full parse, and written back in
this layout.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, ValidationError

from .models import AgentTask

GRAPH_FORMAT = 1
"""Version of the graph file's layout, written in every file."""
_OPEN = b'{"format":%d,"tasks":[\n' % GRAPH_FORMAT
_CLOSE = b"]}\n"


class GraphFile(BaseModel):
    """The JSON document in ``tasks.graph.json``."""

    model_config = ConfigDict(extra="forbid")

    format: int = GRAPH_FORMAT
    tasks: list[AgentTask] = []


class GraphCodec:
    """Decode and encode graph files, reusing the work done for unchanged tasks.

    Both caches are exact (line bytes -> the task they parse to; task id -> the task object
    and the line it was encoded to or parsed from), so a stale entry is only ever a miss.
    """

    def __init__(self) -> None:
        self._tasks_by_line: dict[bytes, AgentTask] = {}
        self._lines_by_id: dict[str, tuple[AgentTask, bytes]] = {}
        # The last file seen whole: when nobody else wrote since, nothing is split at all.
        self._last: tuple[bytes, list[AgentTask]] | None = None

    def decode(self, raw: bytes) -> GraphFile:
        """The document in ``raw``; raises pydantic's ``ValidationError`` when it is none."""
        if self._last is not None and raw == self._last[0]:
            return GraphFile.model_construct(format=GRAPH_FORMAT, tasks=list(self._last[1]))
        tasks = self._decode_lines(raw)
        if tasks is None:
            self._tasks_by_line = {}
            self._lines_by_id = {}
            return GraphFile.model_validate_json(raw)
        self._last = (raw, tasks)
        return GraphFile.model_construct(format=GRAPH_FORMAT, tasks=list(tasks))

    def encode(self, tasks: Iterable[AgentTask]) -> bytes:
        lines_by_id: dict[str, tuple[AgentTask, bytes]] = {}
        for task in tasks:
            known = self._lines_by_id.get(task.id)
            line = known[1] if known is not None and known[0] is task else None
            if line is None:
                line = task.model_dump_json().encode()
            lines_by_id[task.id] = (task, line)
        self._lines_by_id = lines_by_id
        self._tasks_by_line = {line: task for task, line in lines_by_id.values()}
        body = b",\n".join(line for _, line in lines_by_id.values())
        raw = _OPEN + body + (b"\n" if body else b"") + _CLOSE
        self._last = (raw, [task for task, _ in lines_by_id.values()])
        return raw

    def _decode_lines(self, raw: bytes) -> list[AgentTask] | None:
        """The tasks of a file in this module's layout, or ``None`` for any other file."""
        if len(raw) < len(_OPEN) + len(_CLOSE) or not (
            raw.startswith(_OPEN) and raw.endswith(_CLOSE)
        ):
            return None
        body = raw[len(_OPEN) : -len(_CLOSE)]
        # Compact JSON never holds a raw newline, so ",\n" only ever separates two tasks.
        lines = body[:-1].split(b",\n") if body else []
        if body and not body.endswith(b"\n"):
            return None
        known = self._tasks_by_line
        tasks_by_line: dict[bytes, AgentTask] = {}
        tasks: list[AgentTask] = []
        for line in lines:
            task = known.get(line)
            if task is None:
                try:
                    task = AgentTask.model_validate_json(line)
                except ValidationError:
                    return None  # the full parse reports it, with its place in the file
            tasks_by_line[line] = task
            tasks.append(task)
        self._tasks_by_line = tasks_by_line
        self._lines_by_id = {task.id: (task, line) for line, task in tasks_by_line.items()}
        return tasks
