"""The typed values that cross the harness's boundaries: parsed tasks and agent results.

Field names are snake_case in Python and camelCase on the wire, so the structured output of
the parser agent (and the Open Harness golden recordings) validates as it is.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

__all__ = [
    "CodingResult",
    "ParsedTasks",
    "Phase",
    "ReviewVerdict",
    "RunUsage",
    "StatusData",
    "Task",
    "TasksMetadata",
]


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class Phase(_Wire):
    number: int
    name: str
    purpose: str | None = None
    independent_test: str | None = None
    goal: str | None = None


class Task(_Wire):
    id: str = Field(pattern=r"^T\d+$")
    description: str
    phase: str
    phase_number: int
    status: Literal["pending", "complete"] = "pending"
    parallel: bool = False
    dependencies: list[str] = Field(default_factory=list)
    validation_criteria: str | None = None
    file_paths: list[str] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _lift_flags(cls, value: Any) -> Any:
        # The parser agent's schema nests the parallel marker as flags.parallel.
        if isinstance(value, dict) and isinstance(value.get("flags"), dict):
            value = {**value, "parallel": bool(value["flags"].get("parallel"))}
        return value


class TasksMetadata(_Wire):
    total_tasks: int
    complete_tasks: int
    pending_tasks: int
    cycles: list[list[str]] = Field(default_factory=list)
    source_path: str | None = None


class ParsedTasks(_Wire):
    """A spec-kit tasks file: its phases and tasks, in file order."""

    phases: list[Phase]
    tasks: list[Task]
    metadata: TasksMetadata | None = None

    def task(self, task_id: str) -> Task:
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise KeyError(f"no task {task_id!r} (tasks: {', '.join(t.id for t in self.tasks)})")


class RunUsage(BaseModel):
    """Tokens and cost of one agent run, from the SDK's result message."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    duration_ms: int = 0

    def __add__(self, other: RunUsage) -> RunUsage:
        return RunUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            duration_ms=self.duration_ms + other.duration_ms,
        )


class CodingResult(_Wire):
    summary: str
    stop_reason: Literal["finished", "failed", "compact"] = "finished"
    handoff: str | None = None
    files_changed: list[str] = Field(default_factory=list)
    usage: RunUsage = Field(default_factory=RunUsage)


class ReviewVerdict(_Wire):
    decision: Literal["approve", "reject"]
    feedback: str = ""
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    """``None`` when the reviewer did not say; retries only stop on a stated low value."""
    usage: RunUsage = Field(default_factory=RunUsage)

    @property
    def approved(self) -> bool:
        return self.decision == "approve"


class StatusData(BaseModel):
    """Payload of the harness's ``status`` events: the step, and what it concerns."""

    model_config = ConfigDict(extra="allow")

    step: Literal[
        "phase_started",
        "phase_finished",
        "dependency_cycle",
        "task_started",
        "task_coded",
        "task_rejected",
        "task_validated",
        "task_skipped",
        "task_finished",
    ]
    task_id: str | None = None
