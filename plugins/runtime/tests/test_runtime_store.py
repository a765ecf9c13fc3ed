"""The store contract: every test here runs on each store (see the ``store`` fixture)."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from monologue_runtime import (
    AgentResult,
    AgentTask,
    ClaimRules,
    InvalidTaskError,
    OwnershipError,
    TaskStatus,
    TaskStore,
    UnknownTaskError,
    open_store,
)
from runtime_fixtures import at

RULES = ClaimRules(heartbeat_timeout=30, max_attempts=2)


def test_create_get_list_update_round_trip(store: TaskStore) -> None:
    first = store.create("build", input={"target": "wheel"}, priority=2, metadata={"by": "me"})
    second = store.create("test", dependency_ids=[first.id], parent_id=first.id, id="tests")

    assert store.get(first.id) == first
    assert store.get("tests").dependency_ids == [first.id]
    assert [t.id for t in store.list()] == [first.id, "tests"]
    assert [t.id for t in store.list(type="test")] == ["tests"]
    assert store.list(status="completed") == []

    changed = store.update(second.id, priority=7, context={"hint": "fast"})
    assert changed.priority == 7
    assert changed.updated_at > second.updated_at
    assert store.get("tests").context == {"hint": "fast"}
    assert first.status is TaskStatus.PENDING and first.attempt == 0


def test_invalid_additions_are_refused_and_nothing_is_written(store: TaskStore) -> None:
    store.create("build", id="a")
    before = store.list()

    with pytest.raises(InvalidTaskError, match=r"depends on unknown task\(s\) 'ghost'"):
        store.create("test", dependency_ids=["a", "ghost"])
    with pytest.raises(InvalidTaskError, match="unknown parent 'ghost'"):
        store.create("test", parent_id="ghost")
    with pytest.raises(InvalidTaskError, match="a task with id 'a' already exists"):
        store.create("test", id="a")
    with pytest.raises(InvalidTaskError, match="new task: priority: Input should be a valid"):
        store.create("test", priority="high")
    with pytest.raises(InvalidTaskError, match="new task: colour: Extra inputs"):
        store.create("test", colour="blue")
    with pytest.raises(InvalidTaskError, match="new task: id: Value error, must be printable"):
        store.create("test", id=" spaced ")
    assert store.list() == before


def test_a_batch_may_depend_on_itself_but_not_in_a_cycle(store: TaskStore) -> None:
    first = AgentTask(type="build", id="a")
    second = AgentTask(type="test", id="b", dependency_ids=["a"])
    store.add(first, second)
    assert [t.id for t in store.list()] == ["a", "b"]

    with pytest.raises(InvalidTaskError, match="dependency cycle: a -> b -> a"):
        store.update("a", dependency_ids=["b"])
    with pytest.raises(InvalidTaskError, match="dependency cycle: c -> c"):
        store.add(AgentTask(type="x", id="c", dependency_ids=["c"]))
    with pytest.raises(InvalidTaskError, match="cycle: d -> e -> d"):
        store.add(
            AgentTask(type="x", id="d", dependency_ids=["e"]),
            AgentTask(type="x", id="e", dependency_ids=["d"]),
        )
    assert store.get("a").dependency_ids == []
    assert len(store.list()) == 2


def test_update_refuses_unknown_tasks_fixed_fields_and_bad_values(store: TaskStore) -> None:
    store.create("build", id="a")

    with pytest.raises(UnknownTaskError, match="no task 'zz'"):
        store.update("zz", priority=1)
    with pytest.raises(InvalidTaskError, match="created_at, id cannot be changed"):
        store.update("a", id="b", created_at="2020-01-01T00:00:00Z")
    with pytest.raises(InvalidTaskError, match="task 'a': status: Input should be"):
        store.update("a", status="sleeping")
    assert store.get("a").status is TaskStatus.PENDING


def test_missing_tasks_and_an_empty_graph(store: TaskStore) -> None:
    assert store.list() == []
    assert store.events() == []
    with pytest.raises(UnknownTaskError, match="no task 'nope'"):
        store.get("nope")


def test_two_stores_see_each_others_writes(
    store: TaskStore, store_setting: str, data_dir: object
) -> None:
    other = open_store(store_setting, data_dir=data_dir)  # type: ignore[arg-type]
    try:
        store.create("build", id="a")
        other.update("a", priority=3)
        store.update("a", metadata={"seen": True})
        other.create("build", id="b")

        stored = store.get("a")
        assert (stored.priority, stored.metadata) == (3, {"seen": True})
        assert [t.id for t in other.list()] == ["a", "b"]
    finally:
        other.close()


def test_each_step_logs_its_events_with_the_change(store: TaskStore) -> None:
    store.add(AgentTask(type="build", id="a"), AgentTask(type="build", id="b"))
    claim = store.claim("w1", "build", RULES, at(0))
    assert claim.task is not None and claim.task.id == "a" and claim.events == []
    beat = store.heartbeat("a", "w1", at(1), {"message": "half", "progress": 0.5})
    done = store.complete("a", "w1", AgentResult(task_id="a", notes="ok"), at(2))
    store.claim("w1", "build", RULES, at(3))
    retaken = store.claim("w2", "build", RULES, at(40))  # b went silent: reclaimed, re-claimed

    assert retaken.task is not None and retaken.task.id == "b" and retaken.task.attempt == 2
    assert [t.id for t in retaken.reclaimed] == ["b"]
    log = store.events()
    assert log == [*beat.events, *done.events, *retaken.events]
    assert [(e.type, e.task_id, e.agent_id) for e in log] == [
        ("agent_update", "a", "w1"),
        ("agent_result", "a", "w1"),
        ("agent_result", "b", "w2"),
    ]
    assert log[0].data["progress"] == 0.5 and log[0].data["attempt"] == 1
    assert log[1].data["status"] == "completed" and log[1].data["notes"] == "ok"
    assert log[2].data["retrying"] is True and "no heartbeat from 'w1'" in str(log[2].data["notes"])
    assert store.events("a") == log[:2]


def test_only_the_holder_may_report_and_a_refused_step_changes_nothing(store: TaskStore) -> None:
    store.create("build", id="a")
    store.claim("w1", "build", RULES, at(0))
    before = store.get("a")

    with pytest.raises(OwnershipError, match="held by 'w1', not by 'w2'"):
        store.complete("a", "w2", AgentResult(task_id="a"), at(1))
    with pytest.raises(OwnershipError, match="not by 'w2'"):
        store.heartbeat("a", "w2", at(1), {"message": "x"})
    with pytest.raises(UnknownTaskError):
        store.heartbeat("ghost", "w1", at(1), {"message": "x"})
    assert store.get("a") == before
    assert store.events() == []


def test_prune_archives_old_finished_tasks_that_nothing_waits_on(store: TaskStore) -> None:
    store.add(
        AgentTask(type="build", id="old"),
        AgentTask(type="build", id="needed"),
        AgentTask(type="late", id="waiting", dependency_ids=["needed"]),
        AgentTask(type="build", id="recent"),
    )
    for task_id, when in (("old", 0), ("needed", 1), ("recent", 500)):
        store.claim("w", "build", RULES, at(when))
        store.complete(task_id, "w", AgentResult(task_id=task_id), at(when))
    store.update("waiting", priority=1)  # unfinished: it keeps "needed"

    pruned = store.prune(timedelta(seconds=100), now=at(600))

    assert pruned == ["old"]
    assert [t.id for t in store.list()] == ["needed", "waiting", "recent"]
    assert [(t.id, t.status) for t in store.archived()] == [("old", TaskStatus.COMPLETED)]
    assert [e.task_id for e in store.events()] == ["old", "needed", "recent"]  # the log stays
    assert store.prune(timedelta(seconds=100), now=at(600)) == []


def test_an_idle_agent_wakes_when_work_appears(
    store: TaskStore, store_setting: str, data_dir: object
) -> None:
    waiter = open_store(store_setting, data_dir=data_dir)  # type: ignore[arg-type]
    try:
        waiter.wait_for_work(0.01)  # starts listening where the store needs to
        woke: list[float] = []

        def wait() -> None:
            started = time.monotonic()
            if waiter.wait_for_work(20):
                woke.append(time.monotonic() - started)

        thread = threading.Thread(target=wait)
        thread.start()
        time.sleep(0.3)
        store.create("build", id="new")
        thread.join(30)
        assert woke and 0.25 < woke[0] < 5
    finally:
        waiter.close()


def test_an_idle_wait_without_work_times_out(store: TaskStore) -> None:
    store.wait_for_work(0.01)
    started = time.monotonic()
    assert store.wait_for_work(0.2) is False
    assert time.monotonic() - started >= 0.19
