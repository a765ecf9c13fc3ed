"""Batch claims: ``BaseAgent.batch_size`` and giving back claimed tasks not started
(``release``). The crash of an agent holding a batch is in test_runtime_processes.py."""

from __future__ import annotations

import threading
import time
from datetime import datetime

import pytest
from monologue_runtime import (
    AgentResult,
    AgentRuntime,
    AgentTask,
    BaseAgent,
    TaskStatus,
    TaskStore,
)
from runtime_fixtures import Observer, RuntimeFactory, at


class Batched(BaseAgent):
    """Claims three tasks at a time; notes what it handles, sleeping ``input["sleep"]``."""

    agent_type = "build"
    batch_size = 3

    def __init__(self) -> None:
        super().__init__()
        self.handled: list[AgentTask] = []
        self.stop: threading.Event | None = None
        self.waiting_after_beat: list[list[tuple[str, str]]] = []

    def handle_task(self, task: AgentTask, runtime: AgentRuntime) -> AgentResult:
        self.handled.append(task)
        if task.input.get("beat"):
            assert self.heartbeat(task, runtime, "forced, not due yet", force=True)
            self.waiting_after_beat.append(_waiting(runtime.store))
        time.sleep(float(str(task.input.get("sleep", 0))))
        if task.input.get("beat"):
            assert self.heartbeat(task, runtime, "due")
            self.waiting_after_beat.append(_waiting(runtime.store))
        if self.stop is not None:
            self.stop.set()
        return AgentResult(task_id=task.id)


def _add(store: TaskStore, count: int, **fields: object) -> list[str]:
    ids = [f"t{n}" for n in range(count)]
    store.add(
        *(AgentTask(type="build", id=i, priority=count - n, **fields) for n, i in enumerate(ids))
    )
    return ids


def test_release_gives_back_only_what_the_agent_holds(
    store: TaskStore, make_runtime: RuntimeFactory, observer: Observer
) -> None:
    _add(store, 3)
    mine, other = make_runtime("a"), make_runtime("b")
    taken = mine.poll_next_tasks(2, now=at(0))
    theirs = other.poll_next_task(now=at(1))
    assert [t.id for t in taken] == ["t0", "t1"] and theirs is not None and theirs.id == "t2"

    back = mine.release_tasks(["t1", "t2", "t0"], now=at(2))

    assert sorted(t.id for t in back) == ["t0", "t1"]
    for task_id in ("t0", "t1"):
        stored = store.get(task_id)
        assert stored in back
        assert (stored.status, stored.owner, stored.attempt) == (TaskStatus.PENDING, None, 0)
        assert (stored.heartbeat_at, stored.updated_at) == (None, at(2))
    assert store.get("t2") == theirs  # held by someone else: untouched
    assert store.events() == [] and observer.of_type("agent_update", "agent_result") == []
    assert mine.release_tasks(["t0"]) == []  # not held any more
    again = other.poll_next_tasks(5, now=at(3))  # claimable by anyone, attempt 1 again
    assert [(t.id, t.attempt) for t in again] == [("t0", 1), ("t1", 1)]


def test_a_batch_agent_runs_every_task_in_order_claiming_a_batch_at_a_time(
    store: TaskStore, make_runtime: RuntimeFactory
) -> None:
    ids = _add(store, 7)
    agent, runtime = Batched(), make_runtime()

    done = agent.run(runtime)

    assert [t.id for t in done] == ids
    assert [t.id for t in agent.handled] == ids
    assert all((t.status, t.attempt) == (TaskStatus.COMPLETED, 1) for t in store.list())
    # Claimed three at a time: a batch shares its claim's time.
    claims = [t.heartbeat_at for t in agent.handled]
    assert claims[0] == claims[1] == claims[2] != claims[3] == claims[4] == claims[5] != claims[6]


def test_run_claims_no_more_than_max_tasks(store: TaskStore, make_runtime: RuntimeFactory) -> None:
    _add(store, 5)
    agent, runtime = Batched(), make_runtime()

    assert [t.id for t in agent.run(runtime, max_tasks=2)] == ["t0", "t1"]
    assert [t.id for t in store.list(status="pending")] == ["t2", "t3", "t4"]
    assert store.list(status="in_progress") == []


def test_serve_gives_back_the_tasks_it_did_not_start(
    store: TaskStore, make_runtime: RuntimeFactory
) -> None:
    _add(store, 4)
    agent, runtime = Batched(), make_runtime()
    agent.stop = threading.Event()  # set while the first task runs

    done = agent.serve(runtime, agent.stop, poll_interval=0.1)

    assert [t.id for t in done] == ["t0"]
    left = [(t.id, t.owner, t.attempt) for t in store.list(status="pending")]
    assert left == [("t1", None, 0), ("t2", None, 0), ("t3", None, 0)]


def test_tasks_that_waited_a_heartbeat_interval_are_given_back_and_claimed_again(
    store: TaskStore, make_runtime: RuntimeFactory
) -> None:
    store.add(
        AgentTask(type="build", id="slow", priority=9, input={"sleep": 0.3}),
        AgentTask(type="build", id="next", priority=5),
    )
    agent = Batched()
    runtime = make_runtime(heartbeat_interval=0.2, heartbeat_timeout=5)

    agent.run(runtime)

    slow, after = agent.handled
    assert (slow.id, after.id) == ("slow", "next")
    assert slow.heartbeat_at is not None and after.heartbeat_at is not None
    # "next" was claimed with "slow", waited longer than the interval, went back, and was
    # claimed again when its turn came: a fresh claim, and its first counted attempt.
    assert _seconds(after.heartbeat_at, slow.heartbeat_at) >= 0.3
    assert [(t.status, t.attempt) for t in store.list()] == [(TaskStatus.COMPLETED, 1)] * 2


def test_a_batch_taken_by_another_runtime_goes_back_before_a_claim(
    store: TaskStore, make_runtime: RuntimeFactory
) -> None:
    _add(store, 4)
    agent, first, second = Batched(), make_runtime("a"), make_runtime("b")

    assert agent.execute_once(first) is not None  # claims t0-t2, runs t0
    ran = agent.execute_once(second)  # t1, t2 go back from "a", "b" claims anew

    assert ran is not None and (ran.id, ran.owner) == ("t1", "b")
    assert [(t.id, t.owner) for t in store.list(status="in_progress")] == [
        ("t2", "b"),
        ("t3", "b"),
    ]
    assert [t.id for t in agent.release_waiting()] == ["t2", "t3"]
    assert agent.release_waiting() == []


def test_a_batch_that_cannot_be_given_back_is_logged_and_left_to_the_timeout(
    store: TaskStore, make_runtime: RuntimeFactory, caplog: pytest.LogCaptureFixture
) -> None:
    _add(store, 4)
    agent, first, second = Batched(), make_runtime("a"), make_runtime("b")
    assert agent.execute_once(first) is not None  # claims t0-t2, runs t0
    first.close()

    ran = agent.execute_once(second)

    assert ran is not None and (ran.id, ran.owner) == ("t3", "b")
    assert [(t.id, t.owner) for t in store.list(status="in_progress")] == [("t1", "a"), ("t2", "a")]
    assert "agent a: could not give back the tasks it had claimed and not started" in caplog.text
    assert "runtime 'a' is closed" in caplog.text
    assert agent.release_waiting() == []  # nothing is left to give back


@pytest.mark.parametrize("size", [0, -1, 1.5, "3"])
def test_a_bad_batch_size_is_refused(size: object) -> None:
    agent_class = type("Odd", (Batched,), {"batch_size": size})
    with pytest.raises(TypeError, match=r"Odd.batch_size must be a whole number of at least 1"):
        agent_class()


def test_a_due_heartbeat_gives_back_the_tasks_waiting_their_turn(
    store: TaskStore, make_runtime: RuntimeFactory
) -> None:
    store.add(
        AgentTask(type="build", id="long", priority=9, input={"sleep": 0.3, "beat": True}),
        AgentTask(type="build", id="b", priority=5),
        AgentTask(type="build", id="c", priority=4),
    )
    agent = Batched()
    runtime = make_runtime(heartbeat_interval=0.2, heartbeat_timeout=5)

    agent.run(runtime)

    forced, due = agent.waiting_after_beat
    assert forced == [("b", "in_progress"), ("c", "in_progress")]  # a forced one keeps them
    assert due == [("b", "pending"), ("c", "pending")]  # a due one gives them back
    assert [t.id for t in agent.handled] == ["long", "b", "c"]  # claimed again, and run
    assert [(t.status, t.attempt) for t in store.list()] == [(TaskStatus.COMPLETED, 1)] * 3


def _waiting(store: TaskStore) -> list[tuple[str, str]]:
    return [(t.id, t.status.value) for t in store.list() if t.id != "long"]


def _seconds(later: datetime, earlier: datetime) -> float:
    return (later - earlier).total_seconds()
