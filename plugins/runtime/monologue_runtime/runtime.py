"""``AgentRuntime``: one agent's handle on the shared task graph, and its voice.

A runtime claims tasks of its agent type, keeps their heartbeat, and reports how they end.
Each step is one atomic step of its :class:`~monologue_runtime.TaskStore`, which logs the
matching event (``agent_update``, ``agent_result``) with the change; the runtime then relays
it through a monologue session, so the recorder keeps it and the gate hears it. Events are always
``internal``; payloads that try to reach the user are refused before anything happens
(see :mod:`.guardrails`).

The session is, in order: the ``session`` argument; the session of the running scope
(``monologue.current()``) when the runtime is created inside one; else a session of its
own named after the agent, which :meth:`AgentRuntime.close` (or leaving ``with``) closes.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from monologue import Session, current
from monologue.errors import ConfigError
from monologue.events import Event, utcnow
from monologue.settings import load_config

from .guardrails import check_internal
from .models import AgentError, AgentResult, AgentTask, TaskStatus
from .payloads import AgentUpdatePayload
from .settings import RuntimeSettings
from .storage import Change, ClaimRules, TaskStore
from .stores import open_store

DEFAULT_HEARTBEAT_INTERVAL_S = 10.0


class AgentRuntime:
    """Claim, work on and finish tasks of ``agent_type`` as agent ``agent_id``.

    ``heartbeat_interval``: how often an agent at work should show signs of life (see
    :meth:`heartbeat_due`). ``heartbeat_timeout`` (config ``runtime_heartbeat_timeout_s``,
    default 60 s): after this long without a heartbeat, a task is taken back from its owner.
    ``max_attempts`` (config ``runtime_max_attempts``, default 3): attempts a task gets before
    a retryable error, or a lost owner, fails it for good. ``store`` is a
    :class:`TaskStore`, or a ``runtime_store`` value (``file`` or a PostgreSQL URL; default:
    the configured one); a store the runtime opened is closed with it. ``data_dir``
    overrides the configured data folder of the file store.
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
        lock_timeout: float | None = None,
        store: TaskStore | str | None = None,
    ) -> None:
        for name, value in (("agent_id", agent_id), ("agent_type", agent_type)):
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{name} must be a non-empty string, got {value!r}")
        session = session if session is not None else current()
        if session is not None and session.closed:
            raise ValueError(f"session {session.id} ({session.agent!r}) is already closed")
        # The agent's side: a bad setting is warned about and runs on its default.
        config = session.config if session is not None else load_config(tolerant=True)
        settings = config.settings(RuntimeSettings)
        self.agent_id = agent_id
        self.agent_type = agent_type
        self.max_attempts = int(_argument(settings.max_attempts, int, max_attempts=max_attempts))
        self.heartbeat_timeout = _argument(
            settings.heartbeat_timeout_s, float, heartbeat_timeout=heartbeat_timeout
        )
        if not (0 < heartbeat_interval < self.heartbeat_timeout):
            raise ValueError(
                f"heartbeat_interval must be positive and shorter than the heartbeat timeout "
                f"({self.heartbeat_timeout:g} s), got {heartbeat_interval!r}"
            )
        self.heartbeat_interval = float(heartbeat_interval)
        self.store: TaskStore
        if isinstance(store, TaskStore):
            self.store, self._owns_store = store, False
        else:
            self.store = open_store(
                store, data_dir=data_dir, config=config, lock_timeout=lock_timeout
            )
            self._owns_store = True
        self._owns_session = session is None
        if session is None:
            session = Session(agent_id, config=config, meta={"agent_type": agent_type})
        self.session = session.start()
        self._closed = False

    def __repr__(self) -> str:
        return f"<AgentRuntime {self.agent_id!r} ({self.agent_type}) on {self.store.location}>"

    # -- lifecycle ----------------------------------------------------------------------

    def close(self, error: BaseException | None = None) -> None:
        """Stop using the runtime; closes the session only if the runtime created it."""
        if self._closed:
            return
        self._closed = True
        if self._owns_store:
            self.store.close()
        if self._owns_session:
            self.session.close(error=error)

    def __enter__(self) -> AgentRuntime:
        return self

    def __exit__(self, *exc_info: object) -> None:
        error = exc_info[1] if len(exc_info) > 1 else None
        self.close(error=error if isinstance(error, BaseException) else None)

    # -- claiming -----------------------------------------------------------------------

    def poll_next_task(self, now: datetime | None = None) -> AgentTask | None:
        """Take the next task to run, or ``None`` when there is none.

        In one atomic step: stale tasks are reclaimed (see :meth:`reclaim_stale`), then the
        PENDING task of this agent type whose dependencies are all COMPLETED, highest
        priority first and then oldest, becomes IN_PROGRESS, owned by this agent, with its
        attempt counted.
        """
        self._check_open()
        change = self.store.claim(self.agent_id, self.agent_type, self._rules(), now or utcnow())
        self._relay(change)
        return change.task

    def poll_next_tasks(self, limit: int, now: datetime | None = None) -> list[AgentTask]:
        """Take up to ``limit`` tasks at once, in the order they should run (one statement
        on PostgreSQL), as :meth:`poll_next_task` would one by one. Each is held, and
        reclaimed after the heartbeat timeout, from now on: take only what you will start
        on soon."""
        self._check_open()
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit!r}")
        changes = self.store.claim_batch(
            self.agent_id, self.agent_type, self._rules(), now or utcnow(), limit
        )
        for change in changes:
            self._relay(change)
        return [change.task for change in changes if change.task is not None]

    def release_tasks(self, task_ids: list[str], now: datetime | None = None) -> list[AgentTask]:
        """Give back tasks this agent claimed and has not started: PENDING again, for any
        agent, with the attempt their claim counted not counted. Tasks it no longer holds
        are left alone. Returns the tasks released, as stored."""
        self._check_open()
        return self.store.release(list(task_ids), self.agent_id, now or utcnow())

    def reclaim_stale(
        self, timeout: float | None = None, now: datetime | None = None
    ) -> list[AgentTask]:
        """Take back IN_PROGRESS tasks (of any type) whose owner has not sent a heartbeat
        for ``timeout`` seconds (default: the runtime's heartbeat timeout).

        The abandoned attempt counts: the task goes back to PENDING, or to FAILED once it
        has had ``max_attempts`` attempts. Returns the tasks as stored.
        """
        self._check_open()
        change = self.store.reclaim_stale(self._rules(timeout), now or utcnow(), self.agent_id)
        self._relay(change)
        return change.reclaimed

    def wait_for_work(self, timeout: float) -> bool:
        """Block until new work may be there (PostgreSQL: a notification; files: a change
        on disk) or ``timeout`` seconds pass."""
        self._check_open()
        return self.store.wait_for_work(timeout)

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
        # Validated before the step, so that a bad progress value changes nothing.
        fields = AgentUpdatePayload(
            task_id=task_id,
            agent_id=self.agent_id,
            message=message,
            progress=progress,
            attempt=0,
            status=TaskStatus.IN_PROGRESS,
            details=dict(details or {}),
        ).model_dump(mode="json", include={"message", "progress", "details"})
        change = self.store.heartbeat(task_id, self.agent_id, now or utcnow(), fields)
        return self._relay(change)[0]

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
        return self._stored(self.store.complete(task_id, self.agent_id, result, now or utcnow()))

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
        change = self.store.fail(task_id, self.agent_id, error, self._rules(), now or utcnow())
        return self._stored(change)

    # -- plumbing -----------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"runtime {self.agent_id!r} is closed")

    def _admit(self, event_type: str, task_id: str, payload: Any) -> None:
        """Refuse, before anything happens, a closed runtime or a payload aimed at the user."""
        self._check_open()
        check_internal(payload, f"{event_type} for task {task_id!r}")

    def _rules(self, timeout: float | None = None) -> ClaimRules:
        return _claim_rules(timeout or self.heartbeat_timeout, self.max_attempts)

    def _stored(self, change: Change) -> AgentTask:
        self._relay(change)
        assert change.task is not None
        return change.task

    def _relay(self, change: Change) -> list[Event]:
        """Record, through the session, the events the store logged with the change. Their
        payloads were built from the runtime's own payload models (:mod:`.payloads`), so
        they are not validated again (see :meth:`Event.trusted`)."""
        session = self.session
        return [
            session.dispatch(
                Event.trusted(
                    event.type,
                    event.data,
                    session_id=session.id,
                    agent=self.agent_id,
                    task_id=event.task_id,
                )
            )
            for event in change.events
        ]


@functools.lru_cache(maxsize=32)
def _claim_rules(heartbeat_timeout: float, max_attempts: int) -> ClaimRules:
    """The rules for these settings, validated once (a claim is a hot path; they are frozen)."""
    return ClaimRules(heartbeat_timeout=heartbeat_timeout, max_attempts=max_attempts)


def _argument(configured: float, kind: type[int] | type[float], **argument: Any) -> float:
    """A positive number from the one keyword argument if given, else the configured one
    (already checked by the settings model)."""
    ((name, given),) = argument.items()
    if given is None:
        return configured
    try:
        number = kind(given)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(given, bool) or not number > 0 or not math.isfinite(number):
        raise ConfigError(f"argument {name} must be a positive {kind.__name__}, got {given!r}")
    if kind is int and number != float(given):
        raise ConfigError(f"argument {name} must be a whole number, got {given!r}")
    return number
