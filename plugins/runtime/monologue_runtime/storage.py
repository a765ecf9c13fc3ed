"""What every task store does: the :class:`TaskStore` protocol and the records it hands back.

A store keeps the task graph and, next to it, the lifecycle log: every change an agent makes
to a task (claim, progress, result, reclaim) is written with the event that reports it, in
one atomic step, so a process that dies between the two can neither lose nor duplicate the
event. :class:`~monologue_runtime.AgentRuntime` then relays the returned events to its
session. Two stores implement it: :class:`~monologue_runtime.TaskGraphStore` (files, the
default) and :class:`~monologue_runtime.PostgresTaskStore`.
"""

from __future__ import annotations

import builtins
from datetime import datetime, timedelta
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, JsonValue

from monologue.events import utcnow

from .models import AgentError, AgentResult, AgentTask, TaskStatus

__all__ = ["Change", "ClaimRules", "TaskEvent", "TaskStore"]

EventType = Literal["agent_update", "agent_result"]


class TaskEvent(BaseModel):
    """One lifecycle event, as the store logged it with the task change it reports."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: EventType
    task_id: str
    agent_id: str
    at: AwareDatetime = Field(default_factory=utcnow)
    data: dict[str, JsonValue]


class Change(BaseModel):
    """What one atomic step stored: its task (the claimed or finished one, if any), the
    tasks it reclaimed on the way, and the events logged with them. The tasks are the
    caller's own: changing them changes nothing in the store."""

    model_config = ConfigDict(frozen=True)

    task: AgentTask | None = None
    reclaimed: list[AgentTask] = Field(default_factory=list)
    events: list[TaskEvent] = Field(default_factory=list)


class ClaimRules(BaseModel):
    """How long an owner may stay silent, and how many attempts a task gets."""

    model_config = ConfigDict(frozen=True)

    heartbeat_timeout: float = Field(gt=0)
    max_attempts: int = Field(ge=1)


@runtime_checkable
class TaskStore(Protocol):
    """The task graph and its lifecycle log, shared by every agent that opens it.

    Mutations taking ``agent_id`` act only on a task that agent holds (IN_PROGRESS and
    owned by it), else raise :class:`~monologue_runtime.OwnershipError`.
    """

    @property
    def location(self) -> str:
        """Where the graph lives, fit to show (a path, or a URL without its password)."""

    def add(self, *tasks: AgentTask) -> builtins.list[AgentTask]:
        """Add new tasks in one step; ids new, dependencies and parents known, no cycle."""

    def create(self, type: str, **fields: Any) -> AgentTask:
        """Add one PENDING task of ``type`` with the given :class:`AgentTask` fields."""

    def get(self, task_id: str) -> AgentTask:
        """The task with ``task_id``, or :class:`~monologue_runtime.UnknownTaskError`."""

    def list(
        self, *, status: TaskStatus | str | None = None, type: str | None = None
    ) -> builtins.list[AgentTask]:
        """Tasks in the order they were added, optionally one status or type only."""

    def unmet_dependencies(self, task: AgentTask) -> builtins.list[str]:
        """Ids of the dependencies of ``task`` that are not COMPLETED."""

    def update(self, task_id: str, **changes: Any) -> AgentTask:
        """Change fields of a task (validated whole; ``id``/``created_at`` are fixed)."""

    def claim(self, agent_id: str, agent_type: str, rules: ClaimRules, now: datetime) -> Change:
        """Reclaim stale tasks, then take the ready PENDING task of ``agent_type`` that runs
        first (priority, then age). ``Change.task`` is the claimed task, or ``None``."""

    def claim_batch(
        self, agent_id: str, agent_type: str, rules: ClaimRules, now: datetime, limit: int
    ) -> builtins.list[Change]:
        """:meth:`claim` up to ``limit`` tasks in one step: one change per task claimed, in
        the order they should run; stale tasks reclaimed on the way are in the first change
        (a change without a task when none was claimed)."""

    def release(
        self, task_ids: builtins.list[str], agent_id: str, now: datetime
    ) -> builtins.list[AgentTask]:
        """Give back claimed tasks not started yet, in one step: each that ``agent_id``
        still holds is PENDING again, its claim's attempt not counted, and no event is
        logged (a claim logs none either); the others are left alone. Returns the tasks
        released, as stored, in the order of ``task_ids``."""

    def heartbeat(
        self, task_id: str, agent_id: str, now: datetime, update: dict[str, JsonValue]
    ) -> Change:
        """Refresh the heartbeat of a held task, logging an ``agent_update`` whose data is
        ``update`` plus the task's ``attempt`` and ``status``."""

    def complete(self, task_id: str, agent_id: str, result: AgentResult, now: datetime) -> Change:
        """Finish a held task with ``result`` (COMPLETED, or FAILED for outcome failed)."""

    def fail(
        self, task_id: str, agent_id: str, error: AgentError, rules: ClaimRules, now: datetime
    ) -> Change:
        """End the attempt at a held task: PENDING again if retryable and attempts are left,
        else FAILED."""

    def reclaim_stale(self, rules: ClaimRules, now: datetime, by: str) -> Change:
        """Take back IN_PROGRESS tasks whose heartbeat is older than the timeout."""

    def prune(self, older_than: timedelta, now: datetime | None = None) -> builtins.list[str]:
        """Archive COMPLETED and FAILED tasks last changed before ``now - older_than`` that
        no unfinished task depends on; returns their ids."""

    def archived(self) -> builtins.list[AgentTask]:
        """Tasks :meth:`prune` moved out of the graph."""

    def events(self, task_id: str | None = None) -> builtins.list[TaskEvent]:
        """The lifecycle log in the order it was written (one task's, if given)."""

    def wait_for_work(self, timeout: float) -> bool:
        """Block until tasks may have become claimable (or ``timeout`` seconds); True when
        something changed."""

    def close(self) -> None:
        """Release connections and files; the store is not used afterwards."""
