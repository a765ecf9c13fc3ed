"""The payloads of the events the runtime records (``agent_update``, ``agent_result``).

They forbid unknown keys: whatever an agent adds goes under ``details`` (or the result's
own fields), so nothing it passes can overwrite ``task_id`` or ``agent_id``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from .models import AgentError, AgentResult, AgentTask, Outcome, TaskStatus


class AgentUpdatePayload(BaseModel):
    """``agent_update``: progress on a task the agent holds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str
    agent_id: str
    message: str
    progress: float | None = Field(None, ge=0, le=1)
    """Fraction done, from 0 to 1."""
    attempt: int
    status: TaskStatus
    details: dict[str, JsonValue] = Field(default_factory=dict)


class AgentResultPayload(BaseModel):
    """``agent_result``: how an attempt ended, and the task's status after it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str
    agent_id: str
    outcome: Outcome
    status: TaskStatus
    attempt: int
    retrying: bool = False
    """True when a failed attempt put the task back to PENDING for another try."""
    artifacts: dict[str, JsonValue] = Field(default_factory=dict)
    notes: str = ""
    next_actions: list[str] = Field(default_factory=list)
    error: AgentError | None = None

    @classmethod
    def of_result(cls, task: AgentTask, agent_id: str, result: AgentResult) -> AgentResultPayload:
        return cls(
            task_id=task.id,
            agent_id=agent_id,
            outcome=result.outcome,
            status=task.status,
            attempt=task.attempt,
            artifacts=result.artifacts,
            notes=result.notes,
            next_actions=result.next_actions,
        )

    @classmethod
    def of_error(cls, task: AgentTask, agent_id: str, error: AgentError) -> AgentResultPayload:
        return cls(
            task_id=task.id,
            agent_id=agent_id,
            outcome="failed",
            status=task.status,
            attempt=task.attempt,
            retrying=task.status is TaskStatus.PENDING,
            notes=error.reason,
            error=error,
        )
