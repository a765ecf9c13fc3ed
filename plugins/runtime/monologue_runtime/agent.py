"""``BaseAgent``: the loop around one agent's work on the task graph.

Subclasses set ``agent_type`` and implement ``handle_task(task, runtime)``. Everything
else (claiming, heartbeats, completion, failure, retries) is the runtime's business; the
``on_*`` methods are there to be overridden when an agent wants to react.
"""

from __future__ import annotations

import logging
import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar

from monologue.events import utcnow

from .errors import OwnershipError, StoreUnavailableError, TaskGraphError
from .models import AgentError, AgentResult, AgentTask
from .runtime import AgentRuntime

log = logging.getLogger("monologue.runtime")
_UNAVAILABLE_PAUSE_S = 5.0


class TaskFailed(Exception):
    """Raise from ``handle_task`` to end the attempt with an :class:`AgentError`.

    ``retryable=True`` asks for another attempt (up to the runtime's ``max_attempts``).
    """

    def __init__(
        self,
        reason: str | AgentError,
        *,
        retryable: bool = False,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        if isinstance(reason, AgentError):
            self.error = reason
        else:
            self.error = AgentError(reason=reason, retryable=retryable, details=dict(details or {}))
        super().__init__(self.error.reason)


class BaseAgent(ABC):
    """An agent that takes tasks of ``agent_type`` from the graph, one at a time."""

    agent_type: ClassVar[str]
    retry_on_exception: ClassVar[bool] = False
    """Whether an unexpected exception from ``handle_task`` is worth another attempt."""
    batch_size: ClassVar[int] = 1
    """Tasks claimed at once (one statement on PostgreSQL, one step on files), then run one
    after the other. Those waiting their turn are held by this agent, so this is for short
    tasks: when the running task sends a heartbeat that was due, or the next one has
    waited a heartbeat interval, the waiting ones are given back (:meth:`release_waiting`),
    and ``run`` and ``serve`` give back what is left when they return. If the process
    dies, they are reclaimed after the heartbeat timeout, like the task it was running."""

    def __init__(self) -> None:
        cls = type(self)
        if not getattr(cls, "agent_type", ""):
            raise TypeError(f"{cls.__name__} must set the class attribute agent_type")
        if not isinstance(cls.batch_size, int) or cls.batch_size < 1:
            raise TypeError(
                f"{cls.__name__}.batch_size must be a whole number of at least 1, "
                f"got {cls.batch_size!r}"
            )
        self._last_beat: datetime | None = None
        # Claimed in a batch, not started yet, and the runtime that holds them.
        self._waiting: deque[AgentTask] = deque()
        self._waiting_for: AgentRuntime | None = None

    # The on_* methods below are optional hooks: empty on purpose, override what you need.

    @abstractmethod
    def handle_task(self, task: AgentTask, runtime: AgentRuntime) -> AgentResult:
        """Do the work of ``task``. Raise :class:`TaskFailed` to fail the attempt."""

    def on_assign(self, task: AgentTask, runtime: AgentRuntime) -> None:  # noqa: B027
        """The agent has just claimed ``task``."""

    def on_progress(  # noqa: B027
        self, task: AgentTask, message: str, progress: float | None, runtime: AgentRuntime
    ) -> None:
        """:meth:`heartbeat` has just reported progress on ``task``."""

    def on_complete(self, task: AgentTask, result: AgentResult, runtime: AgentRuntime) -> None:  # noqa: B027
        """``task`` (as stored) has been completed with ``result``."""

    def on_error(self, task: AgentTask, error: AgentError, runtime: AgentRuntime) -> None:  # noqa: B027
        """The attempt at ``task`` (as stored: PENDING again, or FAILED) failed with ``error``."""

    def heartbeat(
        self,
        task: AgentTask,
        runtime: AgentRuntime,
        message: str,
        progress: float | None = None,
        *,
        details: Mapping[str, Any] | None = None,
        force: bool = False,
        now: datetime | None = None,
    ) -> bool:
        """Report progress when a heartbeat is due (or ``force``); call it as often as you
        like from ``handle_task``. Returns whether an update was recorded.

        A task still running when a heartbeat is due is a long one: the tasks of its batch
        waiting their turn (see :attr:`batch_size`) are given back then, for other agents
        to run, rather than left to go stale."""
        due = runtime.heartbeat_due(self._last_beat, now)
        if not force and not due:
            return False
        runtime.emit_update(task.id, message, progress, details=details, now=now)
        self._last_beat = now or utcnow()
        if due and self._waiting:
            self._give_back()
        self.on_progress(task, message, progress, runtime)
        return True

    def execute_once(self, runtime: AgentRuntime) -> AgentTask | None:
        """Claim the next task (or take the next of a batch, see :attr:`batch_size`) and
        see it through; returns it as stored, or ``None`` when there is no work.

        An exception from ``handle_task``, or a result the runtime refuses (malformed, or
        trying to reach the user), fails the attempt. Problems with the graph itself
        (:class:`TaskGraphError`, e.g. the task was reclaimed meanwhile) propagate.
        """
        return self._execute(runtime, self.batch_size)

    def release_waiting(self) -> list[AgentTask]:
        """Give back the tasks claimed in a batch and not started yet: PENDING again, their
        attempt not counted. Returns those released, as stored."""
        runtime, ids = self._waiting_for, [task.id for task in self._waiting]
        self._waiting.clear()
        if runtime is None or not ids:
            return []
        return runtime.release_tasks(ids)

    def _execute(self, runtime: AgentRuntime, limit: int) -> AgentTask | None:
        if runtime.agent_type != self.agent_type:
            raise ValueError(
                f"{type(self).__name__} handles {self.agent_type!r} tasks, but the runtime "
                f"claims {runtime.agent_type!r} tasks"
            )
        task = self._next_task(runtime, limit)
        if task is None:
            return None
        self._last_beat = task.heartbeat_at
        self.on_assign(task, runtime)
        try:
            result = self.handle_task(task, runtime)
            stored = runtime.complete_task(task.id, result)
        except TaskFailed as failure:
            error = failure.error
        except TaskGraphError:
            raise
        except Exception as exc:
            log.warning(
                "agent %s: task %s failed: %s: %s",
                runtime.agent_id,
                task.id,
                type(exc).__name__,
                exc,
                exc_info=exc,
            )
            error = AgentError(
                reason=f"{type(exc).__name__}: {exc}",
                retryable=self.retry_on_exception,
                details={"exception": type(exc).__name__},
            )
        else:
            self.on_complete(stored, result, runtime)
            return stored
        stored = runtime.fail_task(task.id, error)
        self.on_error(stored, error, runtime)
        return stored

    def _next_task(self, runtime: AgentRuntime, limit: int) -> AgentTask | None:
        """The next task of the batch, or a new claim of up to ``limit`` tasks. The waiting
        ones are given back first if they have waited a heartbeat interval since their
        claim (before anyone could take them as stale), or belong to another runtime."""
        waiting = self._waiting
        if waiting and (
            self._waiting_for is not runtime or runtime.heartbeat_due(waiting[0].heartbeat_at)
        ):
            self._give_back()
        if not waiting:
            if limit == 1:
                return runtime.poll_next_task()
            waiting.extend(runtime.poll_next_tasks(limit))
            self._waiting_for = runtime
        return waiting.popleft() if waiting else None

    def _give_back(self) -> None:
        """:meth:`release_waiting`, a failure logged rather than raised (over the reason
        for leaving ``run`` or ``serve``, or before a claim): the tasks come back after the
        heartbeat timeout anyway."""
        runtime = self._waiting_for
        try:
            self.release_waiting()
        except (TaskGraphError, RuntimeError) as exc:
            log.warning(
                "agent %s: could not give back the tasks it had claimed and not started "
                "(they are reclaimed after the heartbeat timeout): %s",
                runtime.agent_id if runtime is not None else "?",
                exc,
            )

    def serve(
        self,
        runtime: AgentRuntime,
        stop: threading.Event,
        *,
        poll_interval: float | None = None,
    ) -> list[AgentTask]:
        """Execute tasks as they come until ``stop`` is set; returns them.

        When there is no work the agent sleeps in :meth:`AgentRuntime.wait_for_work`: with
        PostgreSQL it wakes on the notification new work sends. It also looks again every
        ``poll_interval`` seconds (default: half the heartbeat timeout), so that tasks a
        dead agent held are reclaimed in time even when nothing else happens.

        The store rides out a lost connection by itself; a store still unavailable after
        that (:class:`StoreUnavailableError`), or a task taken back meanwhile
        (:class:`OwnershipError`: its result was not recorded, and it runs again), is
        logged and the agent goes on serving.
        """
        interval = poll_interval if poll_interval is not None else runtime.heartbeat_timeout / 2
        done: list[AgentTask] = []
        try:
            while not stop.is_set():
                try:
                    task = self.execute_once(runtime)
                    if task is not None:
                        done.append(task)
                    elif not stop.is_set():
                        runtime.wait_for_work(interval)
                except (StoreUnavailableError, OwnershipError) as exc:
                    log.error("agent %s: %s; serving on", runtime.agent_id, exc)
                    stop.wait(min(interval, _UNAVAILABLE_PAUSE_S))
        finally:
            self._give_back()
        return done

    def run(self, runtime: AgentRuntime, max_tasks: int | None = None) -> list[AgentTask]:
        """Execute tasks until there is no work left (or ``max_tasks``); returns them."""
        done: list[AgentTask] = []
        try:
            while max_tasks is None or len(done) < max_tasks:
                left = self.batch_size if max_tasks is None else max_tasks - len(done)
                task = self._execute(runtime, min(self.batch_size, left))
                if task is None:
                    break
                done.append(task)
        finally:
            self._give_back()
        return done
