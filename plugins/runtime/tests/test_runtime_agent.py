from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from monologue_runtime import (
    AgentError,
    AgentResult,
    AgentRuntime,
    AgentTask,
    BaseAgent,
    TaskFailed,
    TaskStatus,
    TaskStore,
)
from runtime_fixtures import Observer, RuntimeFactory


class Scripted(BaseAgent):
    """Does what the task's input says, and notes every hook call."""

    agent_type = "build"

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, Any]] = []

    def handle_task(self, task: AgentTask, runtime: AgentRuntime) -> AgentResult:
        self.calls.append(("handle", task.id))
        action = task.input.get("do", "succeed")
        if action == "fail":
            raise TaskFailed("flaky", retryable=True, details={"try": task.attempt})
        if action == "crash":
            raise KeyError("missing")
        if action == "shout":
            return AgentResult(task_id=task.id, artifacts={"render_to_user": True})
        if action == "progress":
            # The claim was the first heartbeat.
            claimed = task.heartbeat_at
            assert claimed is not None
            assert not self.heartbeat(task, runtime, "too soon", now=claimed + timedelta(seconds=1))
            assert self.heartbeat(task, runtime, "starting", 0.0, force=True)
            assert self.heartbeat(
                task, runtime, "halfway", 0.5, now=claimed + timedelta(seconds=30)
            )
        return AgentResult(task_id=task.id, notes=f"did {task.id}")

    def on_assign(self, task: AgentTask, runtime: AgentRuntime) -> None:
        self.calls.append(("assign", task.id))

    def on_progress(
        self, task: AgentTask, message: str, progress: float | None, runtime: AgentRuntime
    ) -> None:
        self.calls.append(("progress", message))

    def on_complete(self, task: AgentTask, result: AgentResult, runtime: AgentRuntime) -> None:
        self.calls.append(("complete", task.status))

    def on_error(self, task: AgentTask, error: AgentError, runtime: AgentRuntime) -> None:
        self.calls.append(("error", (task.status, error.reason, error.retryable)))


def test_execute_once_runs_the_hooks_in_order(
    store: TaskStore, make_runtime: RuntimeFactory, observer: Observer
) -> None:
    store.create("build", id="t1", input={"do": "progress"})
    agent = Scripted()
    runtime = make_runtime(heartbeat_interval=10)

    stored = agent.execute_once(runtime)

    assert stored is not None and stored.status is TaskStatus.COMPLETED
    assert stored.result is not None and stored.result.notes == "did t1"
    assert agent.calls == [
        ("assign", "t1"),
        ("handle", "t1"),
        ("progress", "starting"),
        ("progress", "halfway"),
        ("complete", TaskStatus.COMPLETED),
    ]
    updates = observer.of_type("agent_update")
    assert [e.data["message"] for e in updates] == ["starting", "halfway"]
    assert agent.execute_once(runtime) is None


def test_task_failed_requeues_then_fails(store: TaskStore, make_runtime: RuntimeFactory) -> None:
    store.create("build", id="t1", input={"do": "fail"})
    agent = Scripted()
    runtime = make_runtime(max_attempts=2)

    first = agent.execute_once(runtime)
    second = agent.execute_once(runtime)

    assert first is not None and first.status is TaskStatus.PENDING
    assert second is not None and second.status is TaskStatus.FAILED
    assert second.error == AgentError(reason="flaky", retryable=True, details={"try": 2})
    errors = [call for call in agent.calls if call[0] == "error"]
    assert errors == [
        ("error", (TaskStatus.PENDING, "flaky", True)),
        ("error", (TaskStatus.FAILED, "flaky", True)),
    ]
    assert agent.execute_once(runtime) is None


def test_unexpected_exception_fails_the_attempt(
    store: TaskStore, make_runtime: RuntimeFactory, caplog: pytest.LogCaptureFixture
) -> None:
    store.create("build", id="t1", input={"do": "crash"})
    with caplog.at_level(logging.WARNING, logger="monologue.runtime"):
        stored = Scripted().execute_once(make_runtime())

    assert stored is not None and stored.status is TaskStatus.FAILED
    assert stored.error is not None
    assert (stored.error.reason, stored.error.retryable) == ("KeyError: 'missing'", False)
    assert "task t1 failed: KeyError" in caplog.text


def test_retry_on_exception_makes_crashes_retryable(
    store: TaskStore, make_runtime: RuntimeFactory
) -> None:
    class Patient(Scripted):
        retry_on_exception = True

    store.create("build", id="t1", input={"do": "crash"})
    stored = Patient().execute_once(make_runtime())
    assert stored is not None and stored.status is TaskStatus.PENDING


def test_a_result_refused_by_the_guardrail_fails_the_attempt(
    store: TaskStore, make_runtime: RuntimeFactory, observer: Observer
) -> None:
    store.create("build", id="t1", input={"do": "shout"})
    stored = Scripted().execute_once(make_runtime())

    assert stored is not None and stored.status is TaskStatus.FAILED
    assert stored.error is not None and "PolicyViolation" in stored.error.reason
    assert stored.result is None
    (event,) = observer.of_type("agent_result")
    assert event.data["outcome"] == "failed"
    assert event.data["artifacts"] == {}


def test_run_works_until_no_task_is_left(store: TaskStore, make_runtime: RuntimeFactory) -> None:
    store.add(*(AgentTask(type="build", id=f"t{n}", priority=n) for n in range(5)))
    store.create("deploy", id="other")
    agent = Scripted()

    done = agent.run(make_runtime(), max_tasks=2)
    assert [t.id for t in done] == ["t4", "t3"]
    rest = agent.run(make_runtime("agent-2"))
    assert [t.id for t in rest] == ["t2", "t1", "t0"]
    assert store.get("other").status is TaskStatus.PENDING


def test_agent_and_runtime_types_must_match(make_runtime: RuntimeFactory) -> None:
    with pytest.raises(ValueError, match="handles 'build' tasks, but the runtime claims 'deploy'"):
        Scripted().execute_once(make_runtime(agent_type="deploy"))


def test_an_agent_class_must_name_its_type() -> None:
    class Nameless(BaseAgent):
        def handle_task(self, task: AgentTask, runtime: AgentRuntime) -> AgentResult:
            return AgentResult(task_id=task.id)

    with pytest.raises(TypeError, match="Nameless must set the class attribute agent_type"):
        Nameless()


def test_serve_waits_for_work_and_stops_when_asked(
    store: TaskStore, make_runtime: RuntimeFactory
) -> None:
    runtime = make_runtime(heartbeat_timeout=2, heartbeat_interval=1)
    stop = threading.Event()
    served: list[AgentTask] = []
    worker = threading.Thread(target=lambda: served.extend(Scripted().serve(runtime, stop)))
    worker.start()
    try:
        time.sleep(0.3)  # idle: waiting for work
        store.create("build", id="late", input={"do": "ok"})
        deadline = time.monotonic() + 20
        while store.get("late").status is not TaskStatus.COMPLETED:
            assert time.monotonic() < deadline, "the idle agent never took the new task"
            time.sleep(0.02)
    finally:
        stop.set()
        worker.join(10)
    assert not worker.is_alive()
    assert [task.id for task in served] == ["late"]
