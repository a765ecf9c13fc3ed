"""The task graph's records: tasks, the results agents hand back, and their errors.

Tasks are frozen: the store replaces a task with an updated copy under its lock, so a task
object someone holds never changes behind their back.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, JsonValue, field_validator

from monologue.events import new_id, utcnow

Outcome = Literal["success", "failed", "partial"]


class TaskStatus(StrEnum):
    """Where a task is in its life.

    Whether a PENDING task can run (all its dependencies COMPLETED) is computed when a
    runtime looks for work, never stored, so there is no BLOCKED state to keep in sync.
    """

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    FAILED = "failed"


class AgentResult(BaseModel):
    """What an agent produced for one task."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str
    outcome: Outcome = "success"
    artifacts: dict[str, JsonValue] = Field(default_factory=dict)
    """Named outputs (paths, summaries, structured data)."""
    notes: str = ""
    next_actions: list[str] = Field(default_factory=list)


class AgentError(BaseModel):
    """Why an attempt at a task failed; ``retryable`` asks for another attempt."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    reason: str = Field(min_length=1)
    retryable: bool = False
    details: dict[str, JsonValue] = Field(default_factory=dict)


class AgentTask(BaseModel):
    """One unit of work in the graph, taken by an agent of the matching ``type``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(default_factory=new_id, min_length=1, max_length=200)
    type: str = Field(min_length=1)
    owner: str | None = None
    status: TaskStatus = TaskStatus.PENDING
    priority: int = 0
    """Higher runs first; among equals the oldest task runs first."""
    input: dict[str, JsonValue] = Field(default_factory=dict)
    context: dict[str, JsonValue] = Field(default_factory=dict)
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    attempt: int = Field(0, ge=0)
    """Attempts started so far (a claim counts one)."""
    dependency_ids: list[str] = Field(default_factory=list)
    parent_id: str | None = None
    created_at: AwareDatetime = Field(default_factory=utcnow)
    updated_at: AwareDatetime = Field(default_factory=utcnow)
    heartbeat_at: AwareDatetime | None = None
    """Last sign of life from the owner while IN_PROGRESS."""
    result: AgentResult | None = None
    error: AgentError | None = None
    """The last failed attempt's error (kept when the task is re-queued)."""

    @field_validator("id", "type")
    @classmethod
    def _printable(cls, value: str) -> str:
        if value != value.strip() or not value.isprintable():
            raise ValueError(f"must be printable without surrounding whitespace, got {value!r}")
        return value

    @field_validator("created_at", "updated_at", "heartbeat_at")
    @classmethod
    def _in_utc(cls, value: datetime | None) -> datetime | None:
        # One shared tzinfo makes comparisons cheap: claiming compares every pending task.
        return None if value is None else value.astimezone(UTC)
