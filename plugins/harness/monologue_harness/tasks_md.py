"""The offline, deterministic reader of spec-kit ``tasks.md`` files (no model involved).

The format: ``## Phase N: Name`` starts a phase, ``**Purpose**:`` / ``**Independent Test**:``
/ ``**Goal**:`` describe it, ``- [ ] T001 [P] text (depends on T000, T002)`` is a task
(``[X]`` when done, ``[P]`` when it may run in parallel), and the tasks under
``### Phase N Validation`` are the phase's validation criteria as well as tasks.
"""

from __future__ import annotations

import re
from pathlib import Path

from .errors import TasksFileError
from .models import ParsedTasks, Phase, Task, TasksMetadata
from .order import order_tasks

__all__ = ["parse_tasks", "parse_tasks_file"]

_PHASE = re.compile(r"^##\s+Phase\s+(\d+)\s*(?::\s*(.*?))?\s*$")
_VALIDATION = re.compile(r"^###\s+Phase\s+\d+\s+Validation\s*$", re.IGNORECASE)
_SUBHEADING = re.compile(r"^#{1,3}\s")
_FIELD = re.compile(r"^\*\*(Purpose|Independent Test|Goal)\*\*:\s*(.*)$")
_CHECKBOX = re.compile(r"^\s*[-*]\s+\[(.)\]\s*(.*)$")
_TASK = re.compile(r"^(T\d+)\s+(.*)$")
_MARKER = re.compile(r"\[(P|US\d+)\]\s*")
_DEPENDS = re.compile(r"\s*\(depends on ([^)]*)\)\s*$", re.IGNORECASE)
_TASK_ID = re.compile(r"^T\d+$")
_PATH = re.compile(r"(?<![\w/])(?:[\w.-]+/)+[\w-]+(?:\.\w+)+")
_FIELDS = {"Purpose": "purpose", "Independent Test": "independent_test", "Goal": "goal"}


def parse_tasks_file(path: Path | str) -> ParsedTasks:
    """Read and parse a tasks file; errors name the file and line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TasksFileError(f"cannot read tasks file {path}: {exc.strerror}") from None
    return parse_tasks(text, source=str(path))


def parse_tasks(text: str, source: str = "<tasks>") -> ParsedTasks:
    """Parse the text of a tasks file."""
    phases: list[dict[str, object]] = []
    tasks: list[dict[str, object]] = []
    criteria: dict[int, list[str]] = {}
    in_validation = False
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if match := _PHASE.match(stripped):
            phases.append({"number": int(match[1]), "name": match[2] or f"Phase {match[1]}"})
            in_validation = False
        elif _VALIDATION.match(stripped):
            in_validation = True
        elif _SUBHEADING.match(stripped):
            in_validation = False
        elif (match := _FIELD.match(stripped)) and phases:
            phases[-1][_FIELDS[match[1]]] = match[2].strip()
        elif match := _CHECKBOX.match(line):
            where = f"{source}:{lineno}"
            if not phases:
                raise TasksFileError(f"{where}: task before any '## Phase N' heading")
            task = _task(match[1], match[2], phases[-1], where)
            if any(t["id"] == task["id"] for t in tasks):
                raise TasksFileError(f"{where}: task id {task['id']} appears twice")
            tasks.append(task)
            if in_validation:
                criteria.setdefault(int(str(phases[-1]["number"])), []).append(
                    str(task["description"])
                )
    if not tasks:
        raise TasksFileError(f"{source}: no tasks found (expected lines like '- [ ] T001 text')")
    for task in tasks:
        number = int(str(task["phase_number"]))
        phase = next(p for p in phases if p["number"] == number)
        task["validation_criteria"] = "; ".join(criteria.get(number, [])) or phase.get(
            "independent_test"
        )
    parsed_tasks = [Task.model_validate(t) for t in tasks]
    complete = sum(t.status == "complete" for t in parsed_tasks)
    return ParsedTasks(
        phases=[Phase.model_validate(p) for p in phases],
        tasks=parsed_tasks,
        metadata=TasksMetadata(
            total_tasks=len(parsed_tasks),
            complete_tasks=complete,
            pending_tasks=len(parsed_tasks) - complete,
            cycles=order_tasks(parsed_tasks).cycles,
            source_path=source,
        ),
    )


def _task(box: str, rest: str, phase: dict[str, object], where: str) -> dict[str, object]:
    if box not in " xX":
        raise TasksFileError(f"{where}: checkbox must be '[ ]' or '[X]', got '[{box}]'")
    match = _TASK.match(rest.strip())
    if match is None:
        raise TasksFileError(f"{where}: a task needs an id like T001 after its checkbox")
    task_id, text = match[1], match[2]
    markers = _MARKER.findall(text)
    text = _MARKER.sub("", text)
    dependencies: list[str] = []
    if depends := _DEPENDS.search(text):
        dependencies = [d.strip() for d in depends[1].split(",") if d.strip()]
        bad = [d for d in dependencies if not _TASK_ID.match(d)]
        if bad:
            raise TasksFileError(f"{where}: {task_id} depends on {bad}, not task ids")
        text = text[: depends.start()]
    description = text.strip()
    if not description:
        raise TasksFileError(f"{where}: task {task_id} has no description")
    return {
        "id": task_id,
        "description": description,
        "phase": phase["name"],
        "phase_number": phase["number"],
        "status": "pending" if box == " " else "complete",
        "parallel": "P" in markers,
        "dependencies": dependencies,
        "file_paths": _PATH.findall(description),
    }
