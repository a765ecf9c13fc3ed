from __future__ import annotations

from pathlib import Path

import pytest
from monologue_runtime import (
    AgentError,
    AgentResult,
    AgentRuntime,
    AgentTask,
    OwnershipError,
    TaskGraphStore,
    TaskStatus,
    TaskStore,
)
from pytest_monologue import PluginSandbox
from runtime_fixtures import Observer, RuntimeFactory, at

from monologue.errors import ConfigError


def test_lifecycle_claim_update_complete(
    store: TaskStore, make_runtime: RuntimeFactory, observer: Observer
) -> None:
    store.create("build", id="t1", input={"target": "wheel"})
    runtime = make_runtime("builder-1", "build")

    task = runtime.poll_next_task(now=at(0))
    assert task is not None
    assert (task.id, task.status, task.owner, task.attempt) == (
        "t1",
        TaskStatus.IN_PROGRESS,
        "builder-1",
        1,
    )
    assert task.heartbeat_at == at(0)
    assert store.get("t1").status is TaskStatus.IN_PROGRESS

    update = runtime.emit_update("t1", "compiling", 0.5, details={"step": 2}, now=at(5))
    assert store.get("t1").heartbeat_at == at(5)

    result = AgentResult(task_id="t1", artifacts={"wheel": "dist/x.whl"}, notes="built")
    stored = runtime.complete_task("t1", result, now=at(9))
    assert stored.status is TaskStatus.COMPLETED
    assert stored.result == result
    assert stored.heartbeat_at is None
    assert store.get("t1") == stored

    assert [e.type for e in observer.of_type("agent_update", "agent_result")] == [
        "agent_update",
        "agent_result",
    ]
    assert update.visibility == "internal"
    assert update.agent == "builder-1" and update.task_id == "t1"
    assert update.data == {
        "task_id": "t1",
        "agent_id": "builder-1",
        "message": "compiling",
        "progress": 0.5,
        "attempt": 1,
        "status": "in_progress",
        "details": {"step": 2},
    }
    final = observer.of_type("agent_result")[0]
    assert final.visibility == "internal"
    assert final.data["outcome"] == "success"
    assert final.data["status"] == "completed"
    assert final.data["artifacts"] == {"wheel": "dist/x.whl"}
    assert runtime.poll_next_task() is None


def test_claims_highest_priority_then_oldest_of_its_own_type(
    store: TaskStore, make_runtime: RuntimeFactory
) -> None:
    store.add(
        AgentTask(type="build", id="old-low", created_at=at(0)),
        AgentTask(type="build", id="new-high", priority=5, created_at=at(20)),
        AgentTask(type="build", id="old-high", priority=5, created_at=at(10)),
        AgentTask(type="deploy", id="other-type", priority=99, created_at=at(0)),
    )
    runtime = make_runtime(agent_type="build")

    claimed = [runtime.poll_next_task() for _ in range(4)]
    assert [t.id if t else None for t in claimed] == ["old-high", "new-high", "old-low", None]
    assert store.get("other-type").status is TaskStatus.PENDING


def test_a_batch_claim_takes_tasks_in_the_order_they_run(
    store: TaskStore, make_runtime: RuntimeFactory
) -> None:
    store.add(
        AgentTask(type="build", id="old-low", created_at=at(0)),
        AgentTask(type="build", id="new-high", priority=5, created_at=at(20)),
        AgentTask(type="build", id="old-high", priority=5, created_at=at(10)),
        AgentTask(type="build", id="blocked", priority=9, dependency_ids=["old-low"]),
        AgentTask(type="deploy", id="other-type", priority=99, created_at=at(0)),
    )
    runtime = make_runtime(agent_type="build")

    first = runtime.poll_next_tasks(2)
    assert [t.id for t in first] == ["old-high", "new-high"]
    assert all((t.status, t.owner, t.attempt) == ("in_progress", "agent-1", 1) for t in first)
    assert [t.id for t in runtime.poll_next_tasks(10)] == ["old-low"]  # blocked waits
    assert runtime.poll_next_tasks(10) == []
    assert [t.id for t in store.list(status="in_progress")] == ["old-low", "new-high", "old-high"]
    with pytest.raises(ValueError, match="limit must be at least 1"):
        runtime.poll_next_tasks(0)


def test_a_report_on_a_task_changed_meanwhile_keeps_the_change(
    store: TaskStore, make_runtime: RuntimeFactory
) -> None:
    store.create("build", id="t1")
    runtime = make_runtime()
    assert runtime.poll_next_task() is not None
    store.update("t1", priority=7, metadata={"by": "operator"})  # another process, meanwhile
    runtime.emit_update("t1", "halfway", 0.5)
    done = runtime.complete_task("t1", AgentResult(task_id="t1"))
    assert (done.status, done.priority, done.metadata) == ("completed", 7, {"by": "operator"})
    assert store.get("t1") == done
    assert [e.type for e in store.events("t1")] == ["agent_update", "agent_result"]


def test_dependencies_must_all_be_completed(store: TaskStore, make_runtime: RuntimeFactory) -> None:
    store.add(
        AgentTask(type="build", id="a"),
        AgentTask(type="build", id="b"),
        AgentTask(type="build", id="after-both", priority=10, dependency_ids=["a", "b"]),
    )
    runtime = make_runtime()

    first = runtime.poll_next_task()
    assert first is not None and first.id == "a"  # the high-priority task is not ready
    runtime.complete_task("a", AgentResult(task_id="a"))
    second = runtime.poll_next_task()
    assert second is not None and second.id == "b"
    assert runtime.poll_next_task() is None  # b is in progress, not completed

    runtime.complete_task("b", AgentResult(task_id="b"))
    third = runtime.poll_next_task()
    assert third is not None and third.id == "after-both"


def test_a_failed_dependency_keeps_its_dependents_waiting(
    store: TaskStore, make_runtime: RuntimeFactory
) -> None:
    store.add(
        AgentTask(type="build", id="a"), AgentTask(type="build", id="b", dependency_ids=["a"])
    )
    runtime = make_runtime()
    runtime.poll_next_task()
    runtime.fail_task("a", AgentError(reason="broken"))

    assert runtime.poll_next_task() is None
    assert store.get("b").status is TaskStatus.PENDING
    assert store.unmet_dependencies(store.get("b")) == ["a"]


def test_heartbeat_due_follows_the_interval(make_runtime: RuntimeFactory) -> None:
    runtime = make_runtime(heartbeat_interval=5)

    assert runtime.heartbeat_due(None)
    assert not runtime.heartbeat_due(at(0), now=at(4.9))
    assert runtime.heartbeat_due(at(0), now=at(5))


def test_stale_task_is_reclaimed_and_its_owner_can_no_longer_report(
    store: TaskStore, make_runtime: RuntimeFactory, observer: Observer
) -> None:
    store.create("build", id="t1")
    lost = make_runtime("lost", heartbeat_timeout=60)
    rescuer = make_runtime("rescuer", heartbeat_timeout=60)
    assert lost.poll_next_task(now=at(0)) is not None

    assert rescuer.reclaim_stale(now=at(59)) == []
    lost.emit_update("t1", "still here", now=at(50))
    assert rescuer.reclaim_stale(now=at(100)) == []  # the update was a heartbeat

    reclaimed = rescuer.reclaim_stale(now=at(111))
    assert [(t.id, t.status, t.owner, t.attempt) for t in reclaimed] == [
        ("t1", TaskStatus.PENDING, None, 1)
    ]
    assert reclaimed[0].error is not None and reclaimed[0].error.retryable
    assert "no heartbeat from 'lost' for more than 60 s" in reclaimed[0].error.reason
    event = observer.of_type("agent_result")[-1]
    assert (event.data["task_id"], event.data["retrying"], event.agent) == ("t1", True, "rescuer")

    again = rescuer.poll_next_task(now=at(112))
    assert again is not None and (again.owner, again.attempt) == ("rescuer", 2)
    with pytest.raises(OwnershipError, match="held by 'rescuer', not by 'lost'"):
        lost.complete_task("t1", AgentResult(task_id="t1"))
    with pytest.raises(OwnershipError):
        lost.emit_update("t1", "I'm back")
    assert store.get("t1").owner == "rescuer"


def test_polling_reclaims_and_a_lost_last_attempt_fails_the_task(
    store: TaskStore, make_runtime: RuntimeFactory
) -> None:
    store.create("build", id="t1")
    runtime = make_runtime(max_attempts=2, heartbeat_timeout=30)

    assert runtime.poll_next_task(now=at(0)) is not None  # attempt 1, then silence
    second = runtime.poll_next_task(now=at(31))  # reclaimed and claimed again in one step
    assert second is not None and second.attempt == 2

    assert runtime.poll_next_task(now=at(62)) is None  # attempt 2 lost: no attempts left
    stored = store.get("t1")
    assert stored.status is TaskStatus.FAILED
    assert stored.error is not None and "no heartbeat" in stored.error.reason


def test_retryable_errors_requeue_until_attempts_run_out(
    store: TaskStore, make_runtime: RuntimeFactory, observer: Observer
) -> None:
    store.create("build", id="t1")
    runtime = make_runtime(max_attempts=3)
    flaky = AgentError(reason="network down", retryable=True, details={"code": 503})

    statuses = []
    for _ in range(3):
        assert runtime.poll_next_task() is not None
        statuses.append(runtime.fail_task("t1", flaky).status)
    assert statuses == [TaskStatus.PENDING, TaskStatus.PENDING, TaskStatus.FAILED]
    assert runtime.poll_next_task() is None

    stored = store.get("t1")
    assert (stored.attempt, stored.error) == (3, flaky)
    results = observer.of_type("agent_result")
    assert [e.data["retrying"] for e in results] == [True, True, False]
    assert {e.data["outcome"] for e in results} == {"failed"}
    assert results[-1].data["error"] == {
        "reason": "network down",
        "retryable": True,
        "details": {"code": 503},
    }


def test_non_retryable_error_fails_at_once(store: TaskStore, make_runtime: RuntimeFactory) -> None:
    store.create("build", id="t1")
    runtime = make_runtime()
    runtime.poll_next_task()

    stored = runtime.fail_task("t1", {"reason": "bad input"})
    assert (stored.status, stored.owner, stored.attempt) == (TaskStatus.FAILED, "agent-1", 1)


def test_result_outcomes_and_mismatched_results(
    store: TaskStore, make_runtime: RuntimeFactory
) -> None:
    store.add(AgentTask(type="build", id="a"), AgentTask(type="build", id="b"))
    runtime = make_runtime()
    runtime.poll_next_task()
    runtime.poll_next_task()

    with pytest.raises(ValueError, match="the result is for task 'b', not for task 'a'"):
        runtime.complete_task("a", AgentResult(task_id="b"))
    with pytest.raises(ValueError, match="outcome"):
        runtime.complete_task("a", {"task_id": "a", "outcome": "meh"})
    partial = runtime.complete_task("a", {"task_id": "a", "outcome": "partial"})
    failed = runtime.complete_task("b", AgentResult(task_id="b", outcome="failed"))
    assert (partial.status, failed.status) == (TaskStatus.COMPLETED, TaskStatus.FAILED)

    with pytest.raises(OwnershipError, match="task 'a' is completed"):
        runtime.complete_task("a", AgentResult(task_id="a"))


def test_reporting_on_a_task_never_claimed_is_refused(
    store: TaskStore, make_runtime: RuntimeFactory, observer: Observer
) -> None:
    store.create("build", id="t1")
    runtime = make_runtime()

    with pytest.raises(OwnershipError, match="is pending and held by nobody"):
        runtime.fail_task("t1", AgentError(reason="x"))
    assert observer.of_type("agent_result") == []


def test_payload_extras_cannot_overwrite_ids(
    store: TaskStore, make_runtime: RuntimeFactory
) -> None:
    store.create("build", id="t1")
    runtime = make_runtime("honest")
    runtime.poll_next_task()

    event = runtime.emit_update(
        "t1", "hi", details={"task_id": "forged", "agent_id": "mallory", "visibility": "internal"}
    )
    assert (event.data["task_id"], event.data["agent_id"]) == ("t1", "honest")
    assert event.data["details"]["agent_id"] == "mallory"

    with pytest.raises(ValueError, match="agent_id"):
        runtime.complete_task("t1", {"task_id": "t1", "agent_id": "mallory"})
    with pytest.raises(ValueError, match="progress"):
        runtime.emit_update("t1", "too far", progress=1.5)
    assert store.get("t1").status is TaskStatus.IN_PROGRESS


def test_settings_come_from_configuration_and_are_validated(
    monologue_plugins: PluginSandbox,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("MONOLOGUE_RUNTIME_MAX_ATTEMPTS", "5")
    monkeypatch.setenv("MONOLOGUE_NARRATOR", "none")
    with AgentRuntime("a", "build", data_dir=data_dir, heartbeat_timeout=120) as runtime:
        assert (runtime.max_attempts, runtime.heartbeat_timeout) == (5, 120.0)
    with AgentRuntime("a", "build", data_dir=data_dir, max_attempts=1) as runtime:
        assert runtime.max_attempts == 1

    # A bad setting: the agent is warned, names the variable, and runs on the default.
    monkeypatch.setenv("MONOLOGUE_RUNTIME_MAX_ATTEMPTS", "lots")
    with AgentRuntime("a", "build", data_dir=data_dir) as runtime:
        assert runtime.max_attempts == 3
    assert "runtime_max_attempts = 'lots' (from env MONOLOGUE_RUNTIME_MAX_ATTEMPTS)" in caplog.text
    monkeypatch.delenv("MONOLOGUE_RUNTIME_MAX_ATTEMPTS")
    monkeypatch.setenv("MONOLOGUE_RUNTIME_HEARTBEAT_TIMEOUT_S", "-1")
    monkeypatch.setenv("MONOLOGUE_STRICT_CONFIG", "1")
    with pytest.raises(ConfigError, match="runtime_heartbeat_timeout_s = '-1' \\(from env"):
        AgentRuntime("a", "build", data_dir=data_dir)
    monkeypatch.delenv("MONOLOGUE_STRICT_CONFIG")
    with pytest.raises(ConfigError, match="argument max_attempts must be a whole number"):
        AgentRuntime(
            "a",
            "build",
            data_dir=data_dir,
            max_attempts=2.5,  # type: ignore[arg-type]  # what an untyped caller may pass
            heartbeat_timeout=9,
        )
    with pytest.raises(ValueError, match="shorter than the heartbeat timeout"):
        AgentRuntime("a", "build", heartbeat_interval=30, data_dir=data_dir, heartbeat_timeout=9)
    with pytest.raises(ValueError, match="agent_id must be a non-empty string"):
        AgentRuntime(" ", "build", data_dir=data_dir)


def test_data_folder_defaults_to_the_configured_one(
    monologue_plugins: PluginSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONOLOGUE_DATA_DIR", str(tmp_path / "configured"))
    with AgentRuntime("a", "build", session=monologue_plugins.session(narrator="none")) as rt:
        assert rt.store.location == str(tmp_path / "configured" / "tasks.graph.json")


def test_runtime_uses_the_current_session(
    monologue_plugins: PluginSandbox, observer: Observer, data_dir: Path
) -> None:
    TaskGraphStore(data_dir).create("build", id="t1")
    with monologue_plugins.session("outer", narrator="none") as outer:
        runtime = AgentRuntime("worker", "build", data_dir=data_dir)
        assert runtime.session is outer
        runtime.poll_next_task()
        runtime.complete_task("t1", AgentResult(task_id="t1"))
        runtime.close()
        assert not outer.closed  # not the runtime's to close
    result = observer.of_type("agent_result")[0]
    assert (result.session_id, result.agent) == (outer.id, "worker")


def test_runtime_owns_a_session_outside_any(
    monologue_plugins: PluginSandbox,
    observer: Observer,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MONOLOGUE_NARRATOR", "none")
    TaskGraphStore(data_dir).create("build", id="t1")
    with AgentRuntime("solo", "build", data_dir=data_dir) as runtime:
        own = runtime.session
        assert own.agent == "solo" and own.active
        runtime.poll_next_task()
        runtime.complete_task("t1", AgentResult(task_id="t1"))
    assert own.closed
    assert [e.type for e in observer.events if e.session_id == own.id] == [
        "agent_result",
        "completion",
    ]
    with pytest.raises(RuntimeError, match="runtime 'solo' is closed"):
        runtime.poll_next_task()


def test_a_closed_session_is_refused(monologue_plugins: PluginSandbox, data_dir: Path) -> None:
    closed = monologue_plugins.session("done", narrator="none")
    closed.start()
    closed.close()
    with pytest.raises(ValueError, match="is already closed"):
        AgentRuntime("a", "build", data_dir=data_dir, session=closed)


def test_returned_tasks_are_copies(store: TaskStore, make_runtime: RuntimeFactory) -> None:
    store.create("build", id="t1", input={"n": 1})
    runtime = make_runtime()
    task = runtime.poll_next_task()
    assert task is not None

    task.input["n"] = 999  # the caller's copy, not the store's
    runtime.emit_update("t1", "working")
    assert store.get("t1").input == {"n": 1}
