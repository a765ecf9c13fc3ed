"""The rules of a task's life, the same in every store: who may touch a task, what a claim,
a heartbeat, a result, a failure and a reclaim change, and the event that reports each.

Pure functions on frozen tasks: a store reads the task, applies one of these and writes the
returned task and event in one atomic step.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pydantic import JsonValue

from .errors import OwnershipError
from .models import AgentError, AgentResult, AgentTask, TaskStatus
from .payloads import AgentResultPayload
from .storage import ClaimRules, TaskEvent

__all__ = [
    "claimed", "completed", "failed", "held", "is_stale", "reclaimed", "released", "updated",
]  # fmt: skip


def held(task: AgentTask, agent_id: str, location: str) -> AgentTask:
    """``task`` if ``agent_id`` holds it, else :class:`OwnershipError`."""
    if task.status is not TaskStatus.IN_PROGRESS or task.owner != agent_id:
        holder = f"held by {task.owner!r}" if task.owner else "held by nobody"
        raise OwnershipError(
            location,
            f"task {task.id!r} is {task.status.value} and {holder}, not by {agent_id!r} "
            "(finished already, or reclaimed after its heartbeat stopped); nothing was recorded",
        )
    return task


def claimed(task: AgentTask, agent_id: str, now: datetime) -> AgentTask:
    return task.model_copy(
        update={
            "status": TaskStatus.IN_PROGRESS,
            "owner": agent_id,
            "attempt": task.attempt + 1,
            "heartbeat_at": now,
            "updated_at": now,
        }
    )


def released(task: AgentTask, now: datetime) -> AgentTask:
    """A claimed task given back before its agent started on it: PENDING again, and the
    attempt its claim counted is not counted (nothing was tried)."""
    return task.model_copy(
        update={
            "status": TaskStatus.PENDING,
            "owner": None,
            "attempt": task.attempt - 1,
            "heartbeat_at": None,
            "updated_at": now,
        }
    )


def updated(
    task: AgentTask, agent_id: str, now: datetime, update: dict[str, JsonValue]
) -> tuple[AgentTask, TaskEvent]:
    """A heartbeat with progress: the refreshed task and its ``agent_update``."""
    data: dict[str, JsonValue] = {
        **update,
        "task_id": task.id,
        "agent_id": agent_id,
        "attempt": task.attempt,
        "status": task.status.value,
    }
    stored = task.model_copy(update={"heartbeat_at": now, "updated_at": now})
    return stored, TaskEvent(
        type="agent_update", task_id=task.id, agent_id=agent_id, at=now, data=data
    )


def completed(
    task: AgentTask, agent_id: str, result: AgentResult, now: datetime
) -> tuple[AgentTask, TaskEvent]:
    status = TaskStatus.FAILED if result.outcome == "failed" else TaskStatus.COMPLETED
    stored = _ended(task, now, {"status": status, "result": result})
    return stored, _result_event(
        stored, agent_id, now, AgentResultPayload.of_result(stored, agent_id, result)
    )


def failed(
    task: AgentTask, agent_id: str, error: AgentError, rules: ClaimRules, now: datetime
) -> tuple[AgentTask, TaskEvent]:
    retry = error.retryable and task.attempt < rules.max_attempts
    changes: dict[str, Any] = (
        {"status": TaskStatus.PENDING, "owner": None, "error": error}
        if retry
        else {"status": TaskStatus.FAILED, "error": error}
    )
    stored = _ended(task, now, changes)
    return stored, _result_event(
        stored, agent_id, now, AgentResultPayload.of_error(stored, agent_id, error)
    )


def is_stale(task: AgentTask, cutoff: datetime) -> bool:
    """An IN_PROGRESS task whose owner has been silent since before ``cutoff``."""
    last_seen = task.heartbeat_at or task.updated_at
    return task.status is TaskStatus.IN_PROGRESS and last_seen < cutoff


def stale_cutoff(rules: ClaimRules, now: datetime) -> datetime:
    return now - timedelta(seconds=rules.heartbeat_timeout)


def reclaimed(
    task: AgentTask, by: str, rules: ClaimRules, now: datetime
) -> tuple[AgentTask, TaskEvent]:
    """Take a stale task back; the abandoned attempt counts towards ``max_attempts``."""
    last_seen = task.heartbeat_at or task.updated_at
    error = AgentError(
        reason=f"no heartbeat from {task.owner!r} for more than {rules.heartbeat_timeout:g} s",
        retryable=True,
        details={"owner": task.owner, "last_heartbeat_at": last_seen.isoformat()},
    )
    return failed(task, by, error, rules, now)


def _ended(task: AgentTask, now: datetime, changes: dict[str, Any]) -> AgentTask:
    return task.model_copy(update={**changes, "heartbeat_at": None, "updated_at": now})


def _result_event(
    task: AgentTask, agent_id: str, now: datetime, payload: AgentResultPayload
) -> TaskEvent:
    # Built, not validated again: every field comes from a validated task or payload.
    return TaskEvent.model_construct(
        type="agent_result",
        task_id=task.id,
        agent_id=agent_id,
        at=now,
        data=payload.model_dump(mode="json"),
    )
