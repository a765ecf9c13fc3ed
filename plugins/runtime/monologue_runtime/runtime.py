"""``AgentRuntime``: one agent's handle on the shared task graph, and its voice.

A runtime claims tasks of its agent type, keeps their heartbeat, and reports how they end.
Each step is one read-modify-write of the graph under its lock; the matching event
(``agent_update``, ``agent_result``) is recorded after the write succeeded, through a
monologue session, so the recorder keeps it and the gate hears it. Events are always
``internal``; payloads that try to reach the user are refused before anything happens
(see :mod:`.guardrails`).

The session is, in order: the ``session`` argument; the session of the running scope
(``monologue.current()``) when the runtime is created inside one; else a session of its
own named after the agent, which :meth:`AgentRuntime.close` (or leaving ``with``) closes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any

from pydantic import BaseModel

from monologue.config import MonologueConfig, load_config
from monologue.errors import ConfigError
from monologue.events import Event, utcnow
from monologue.sessions import Session, current

from .errors import OwnershipError
from .graph import TaskGraph
from .guardrails import check_internal
from .models import AgentError, AgentResult, AgentTask, TaskStatus
from .payloads import AgentResultPayload, AgentUpdatePayload
from .store import DEFAULT_LOCK_TIMEOUT_S, TaskGraphStore

DEFAULT_HEARTBEAT_INTERVAL_S = 10.0
DEFAULT_HEARTBEAT_TIMEOUT_S = 60.0
DEFAULT_MAX_ATTEMPTS = 3


class AgentRuntime:
    """Claim, work on and finish tasks of ``agent_type`` as agent ``agent_id``.

    ``heartbeat_interval``: how often an agent at work should show signs of life (see
    :meth:`heartbeat_due`). ``heartbeat_timeout`` (config ``runtime_heartbeat_timeout_s``,
    default 60 s): after this long without a heartbeat, a task is taken back from its owner.
    ``max_attempts`` (config ``runtime_max_attempts``, default 3): attempts a task gets before
    a retryable error, or a lost owner, fails it for good. ``data_dir`` overrides the
    configured data folder.
    """

    def __init__(
        self,
        agent_id: str,
        agent_type: str,
        heartbeat_interval: float = DEFAULT_HEARTBEAT_INTERVAL_S,
        data_dir: str | Path | None = None,
        *,
        session: Session | None = None,
        max_attempts: int | None = None,
        heartbeat_timeout: float | None = None,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT_S,
    ) -> None:
        for name, value in (("agent_id", agent_id), ("agent_type", agent_type)):
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{name} must be a non-empty string, got {value!r}")
        session = session if session is not None else current()
        if session is not None and session.closed:
            raise ValueError(f"session {session.id} ({session.agent!r}) is already closed")
        config = session.config if session is not None else load_config()
        self.agent_id = agent_id
        self.agent_type = agent_type
        self.max_attempts = int(
            _setting(
                config, "runtime_max_attempts", DEFAULT_MAX_ATTEMPTS, int, max_attempts=max_attempts
            )
        )
        self.heartbeat_timeout = _setting(
            config,
            "runtime_heartbeat_timeout_s",
            DEFAULT_HEARTBEAT_TIMEOUT_S,
            float,
            heartbeat_timeout=heartbeat_timeout,
        )
        if not (0 < heartbeat_interval < self.heartbeat_timeout):
            raise ValueError(
                f"heartbeat_interval must be positive and shorter than the heartbeat timeout "
                f"({self.heartbeat_timeout:g} s), got {heartbeat_interval!r}"
            )
        self.heartbeat_interval = float(heartbeat_interval)
        self.store = TaskGraphStore(data_dir, config=config, lock_timeout=lock_timeout)
        self._owns_session = session is None
        if session is None:
            session = Session(agent_id, config=config, meta={"agent_type": agent_type})
        self.session = session.start()
        self._closed = False

    def __repr__(self) -> str:
        return f"<AgentRuntime {self.agent_id!r} ({self.agent_type}) on {self.store.path}>"

    # -- lifecycle ----------------------------------------------------------------------

    def close(self, error: BaseException | None = None) -> None:
        """Stop using the runtime; closes the session only if the runtime created it."""
        if self._closed:
            return
        self._closed = True
        if self._owns_session:
            self.session.close(error=error)

    def __enter__(self) -> AgentRuntime:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close(error=exc)

    # -- claiming -----------------------------------------------------------------------

    def poll_next_task(self, now: datetime | None = None) -> AgentTask | None:
        """Take the next task to run, or ``None`` when there is none.

        In one locked step: stale tasks are reclaimed (see :meth:`reclaim_stale`), then the
        PENDING task of this agent type whose dependencies are all COMPLETED, highest
        priority first and then oldest, becomes IN_PROGRESS, owned by this agent, with its
        attempt counted.
        """
        self._check_open()
        now = now or utcnow()
        with self.store.transaction() as graph:
            reclaimed = self._reclaim(graph, now, self.heartbeat_timeout)
            task = graph.next_ready(self.agent_type)
            if task is not None:
                task = graph.put(
                    task.model_copy(
                        update={
                            "status": TaskStatus.IN_PROGRESS,
                            "owner": self.agent_id,
                            "attempt": task.attempt + 1,
                            "heartbeat_at": now,
                            "updated_at": now,
                        }
                    )
                )
        self._record_reclaims(reclaimed)
        return None if task is None else task.model_copy(deep=True)

    def reclaim_stale(
        self, timeout: float | None = None, now: datetime | None = None
    ) -> list[AgentTask]:
        """Take back IN_PROGRESS tasks (of any type) whose owner has not sent a heartbeat
        for ``timeout`` seconds (default: the runtime's heartbeat timeout).

        The abandoned attempt counts: the task goes back to PENDING, or to FAILED once it
        has had ``max_attempts`` attempts. Returns the tasks as stored.
        """
        self._check_open()
        with self.store.transaction() as graph:
            reclaimed = self._reclaim(graph, now or utcnow(), timeout or self.heartbeat_timeout)
        self._record_reclaims(reclaimed)
        return [task.model_copy(deep=True) for task in reclaimed]

    def heartbeat_due(self, last_ts: datetime | None, now: datetime | None = None) -> bool:
        """True when ``heartbeat_interval`` has passed since ``last_ts`` (or there was none)."""
        if last_ts is None:
            return True
        return ((now or utcnow()) - last_ts).total_seconds() >= self.heartbeat_interval

    # -- reporting ----------------------------------------------------------------------

    def emit_update(
        self,
        task_id: str,
        message: str,
        progress: float | None = None,
        *,
        details: Mapping[str, Any] | None = None,
        now: datetime | None = None,
    ) -> Event:
        """Record an ``agent_update`` on a task this agent holds, and refresh its heartbeat.

        ``details`` is free-form JSON kept under ``data["details"]``.
        """
        self._admit("agent_update", task_id, details)
        now = now or utcnow()
        with self.store.transaction() as graph:
            task = self._held(graph, task_id)
            payload = AgentUpdatePayload(
                task_id=task_id,
                agent_id=self.agent_id,
                message=message,
                progress=progress,
                attempt=task.attempt,
                status=task.status,
                details=dict(details or {}),
            )
            graph.put(task.model_copy(update={"heartbeat_at": now, "updated_at": now}))
        return self._record("agent_update", payload)

    def complete_task(
        self,
        task_id: str,
        result: AgentResult | Mapping[str, Any],
        now: datetime | None = None,
    ) -> AgentTask:
        """Finish a task this agent holds with ``result``; returns the task as stored.

        The task becomes COMPLETED (FAILED, for good, when the outcome is ``failed``), and an
        ``agent_result`` event is recorded.
        """
        self._admit("agent_result", task_id, result)
        result = AgentResult.model_validate(result)
        if result.task_id != task_id:
            raise ValueError(f"the result is for task {result.task_id!r}, not for task {task_id!r}")
        status = TaskStatus.FAILED if result.outcome == "failed" else TaskStatus.COMPLETED
        return self._finish(
            task_id,
            now,
            lambda task: {"status": status, "result": result},
            lambda stored: AgentResultPayload.of_result(stored, self.agent_id, result),
        )

    def fail_task(
        self,
        task_id: str,
        error: AgentError | Mapping[str, Any],
        now: datetime | None = None,
    ) -> AgentTask:
        """End this agent's attempt at a task with ``error``; returns the task as stored.

        A retryable error puts the task back to PENDING while it has had fewer than
        ``max_attempts`` attempts; otherwise it is FAILED. Either way an ``agent_result``
        event with outcome ``failed`` is recorded (``retrying`` tells which).
        """
        self._admit("agent_result", task_id, error)
        error = AgentError.model_validate(error)

        def settle(task: AgentTask) -> dict[str, Any]:
            retry = error.retryable and task.attempt < self.max_attempts
            if retry:
                return {"status": TaskStatus.PENDING, "owner": None, "error": error}
            return {"status": TaskStatus.FAILED, "error": error}

        return self._finish(
            task_id,
            now,
            settle,
            lambda stored: AgentResultPayload.of_error(stored, self.agent_id, error),
        )

    # -- plumbing -----------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"runtime {self.agent_id!r} is closed")

    def _admit(self, event_type: str, task_id: str, payload: Any) -> None:
        """Refuse, before anything happens, a closed runtime or a payload aimed at the user."""
        self._check_open()
        check_internal(payload, f"{event_type} for task {task_id!r}")

    def _held(self, graph: TaskGraph, task_id: str) -> AgentTask:
        task = graph.get(task_id)
        if task.status is not TaskStatus.IN_PROGRESS or task.owner != self.agent_id:
            holder = f"held by {task.owner!r}" if task.owner else "held by nobody"
            raise OwnershipError(
                graph.path,
                f"task {task_id!r} is {task.status.value} and {holder}, not by "
                f"{self.agent_id!r} (finished already, or reclaimed after its heartbeat "
                "stopped); nothing was recorded",
            )
        return task

    def _finish(
        self,
        task_id: str,
        now: datetime | None,
        changes: Callable[[AgentTask], dict[str, Any]],
        report: Callable[[AgentTask], AgentResultPayload],
    ) -> AgentTask:
        """End the attempt: apply ``changes`` to the held task, then record ``report``."""
        now = now or utcnow()
        with self.store.transaction() as graph:
            task = self._held(graph, task_id)
            update = {**changes(task), "heartbeat_at": None, "updated_at": now}
            stored = graph.put(task.model_copy(update=update))
        self._record("agent_result", report(stored))
        return stored.model_copy(deep=True)

    def _reclaim(self, graph: TaskGraph, now: datetime, timeout: float) -> list[AgentTask]:
        cutoff = now - timedelta(seconds=timeout)
        reclaimed = []
        for task in list(graph):
            if task.status is not TaskStatus.IN_PROGRESS:
                continue
            last_seen = task.heartbeat_at or task.updated_at
            if last_seen >= cutoff:
                continue
            error = AgentError(
                reason=f"no heartbeat from {task.owner!r} for more than {timeout:g} s",
                retryable=True,
                details={"owner": task.owner, "last_heartbeat_at": last_seen.isoformat()},
            )
            retry = task.attempt < self.max_attempts
            update: dict[str, Any] = {
                "status": TaskStatus.PENDING if retry else TaskStatus.FAILED,
                "error": error,
                "heartbeat_at": None,
                "updated_at": now,
            }
            if retry:
                update["owner"] = None
            reclaimed.append(graph.put(task.model_copy(update=update)))
        return reclaimed

    def _record_reclaims(self, reclaimed: list[AgentTask]) -> None:
        for task in reclaimed:
            assert task.error is not None
            payload = AgentResultPayload.of_error(task, self.agent_id, task.error)
            self._record("agent_result", payload)

    def _record(self, event_type: str, payload: BaseModel) -> Event:
        data = payload.model_dump(mode="json")
        return self.session.emit(
            event_type, data, agent=self.agent_id, task_id=data["task_id"], visibility="internal"
        )


def _setting(
    config: MonologueConfig,
    key: str,
    default: float,
    kind: type[int] | type[float],
    **argument: Any,
) -> float:
    """A positive number from the one keyword argument if given, else the config key, else
    the default."""
    ((name, given),) = argument.items()
    source = f"argument {name}" if given is not None else f"config key {key}"
    value = given if given is not None else config.option(key, default)
    try:
        number = kind(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not number > 0 or not math.isfinite(number):
        raise ConfigError(f"{source} must be a positive {kind.__name__}, got {value!r}")
    if kind is int and number != float(value):
        raise ConfigError(f"{source} must be a whole number, got {value!r}")
    return number
