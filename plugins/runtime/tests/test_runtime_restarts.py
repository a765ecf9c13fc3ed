"""A real PostgreSQL server restarted (``pg_ctl restart -m fast``) under agents serving it:
idle on LISTEN, in the middle of a task, and busy with a stream of tasks. Every task runs
exactly once, the agents outlive the restarts, and each logs one warning line per outage."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest
from monologue_runtime import (
    AgentResult,
    AgentRuntime,
    AgentTask,
    BaseAgent,
    PostgresTaskStore,
)
from pytest_monologue.postgres import ThrowawayPostgres

from monologue import Session

SCRIPT = Path(__file__).with_name("runtime_workers.py")
OUTAGE_LINE = "WARNING monologue.runtime postgresql://monologue:***@"


@pytest.fixture(scope="module")
def server() -> Iterator[ThrowawayPostgres]:
    """A server of this module's own: restarting it disturbs no other test."""
    with ThrowawayPostgres() as pg:
        yield pg


class Workers:
    """``serve`` processes (runtime_workers.py) on one graph, claiming ``batch`` tasks at a
    time."""

    def __init__(self, url: str, folder: Path, count: int, batch: int = 1) -> None:
        env = {
            **os.environ,
            "MONOLOGUE_LOAD_PLUGINS": "",
            "MONOLOGUE_NARRATOR": "none",
            "MONOLOGUE_NO_CONFIG_FILE": "1",
            "WORKER_HEARTBEAT_TIMEOUT_S": "5",
            "WORKER_BATCH": str(batch),
        }
        self.go = folder / "go"
        self.outs = [folder / f"worker-{i}.json" for i in range(count)]
        self.procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    str(SCRIPT),
                    "serve",
                    url,
                    str(folder),
                    f"w{i}",
                    str(out),
                    str(self.go),
                ],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for i, out in enumerate(self.outs)
        ]
        self.logs: list[str] = []
        self.wait(lambda: all(Path(f"{out}.ready").exists() for out in self.outs), "start")
        self.go.touch()

    def wait(self, condition: Callable[[], bool], what: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            for proc in self.procs:
                if proc.poll() is not None:
                    raise AssertionError(f"a worker died: {proc.communicate()[1][-3000:]}")
            assert time.monotonic() < deadline, f"workers did not {what} in time"
            time.sleep(0.05)

    def handled(self) -> Counter[str]:
        counts: Counter[str] = Counter()
        for out in self.outs:
            path = Path(f"{out}.handled")
            if path.exists():
                counts.update(path.read_text().split())
        return counts

    def stop(self) -> list[dict[str, list[str]]]:
        """Assert that every worker is still alive, then stop them (SIGTERM) and collect."""
        for proc in self.procs:
            assert proc.poll() is None, f"a worker died: {proc.communicate()[1][-3000:]}"
            proc.send_signal(signal.SIGTERM)
        reports = []
        for proc, out in zip(self.procs, self.outs, strict=True):
            _, stderr = proc.communicate(timeout=60)
            self.logs.append(stderr)
            assert proc.returncode == 0, stderr[-3000:]
            reports.append(json.loads(out.read_text()))
        return reports

    def outage_lines(self) -> list[int]:
        """Each worker's warning lines, after checking that all are the runtime's outage
        line (psycopg_pool's own, about the same connections, are not warnings)."""
        warnings = [
            [line for line in log.splitlines() if line.startswith("WARNING")] for log in self.logs
        ]
        for lines in warnings:
            assert all(OUTAGE_LINE in line and "lost the database" in line for line in lines), lines
        return [len(lines) for lines in warnings]


def _tasks(count: int, sleep: float = 0.0) -> list[AgentTask]:
    return [
        AgentTask(type="echo", id=f"task-{n:04d}", input={"n": n, "sleep": sleep})
        for n in range(count)
    ]


def _all_done_once(store: PostgresTaskStore, workers: Workers, ids: list[str]) -> None:
    reports = workers.stop()
    handled = workers.handled()
    assert sorted(handled) == sorted(ids)
    assert set(handled.values()) == {1}, {k: v for k, v in handled.items() if v > 1}
    completed = [task_id for report in reports for task_id in report["completed"]]
    assert sorted(completed) == sorted(ids)
    assert {task.status for task in store.list()} == {"completed"}
    results = Counter(event.task_id for event in store.events() if event.type == "agent_result")
    assert results == dict.fromkeys(ids, 1)


def _handled_at_least(workers: Workers, count: int) -> bool:
    return len(workers.handled()) >= count


def _count_completed(store: PostgresTaskStore) -> int:
    return len(store.list(status="completed"))


def test_idle_agents_listening_survive_a_restart(server: ThrowawayPostgres, tmp_path: Path) -> None:
    url = server.schema_url()
    store = PostgresTaskStore(url)
    workers = Workers(url, tmp_path, 2)
    time.sleep(1.0)  # both are idle now, waiting on LISTEN
    server.restart()
    tasks = _tasks(25)
    store.add(*tasks)
    workers.wait(lambda: _count_completed(store) == 25, "finish")
    _all_done_once(store, workers, [task.id for task in tasks])
    assert workers.outage_lines() == [1, 1]
    store.close()


@pytest.mark.parametrize("down_for", [0.0, 1.5], ids=["restart", "down-1.5s"])
def test_agents_in_the_middle_of_a_task_survive_a_restart(
    server: ThrowawayPostgres, tmp_path: Path, down_for: float
) -> None:
    url = server.schema_url()
    store = PostgresTaskStore(url)
    tasks = _tasks(25, sleep=0.4)
    store.add(*tasks)
    workers = Workers(url, tmp_path, 2)
    workers.wait(lambda: len(workers.handled()) >= 4, "start working")
    # Both are inside handle_task: their completion meets a new server, or none at all.
    server.restart(down_for=down_for)
    workers.wait(lambda: _count_completed(store) == 25, "finish")
    _all_done_once(store, workers, [task.id for task in tasks])
    assert workers.outage_lines() == [1, 1]
    store.close()


@pytest.mark.parametrize("batch", [1, 4], ids=["one-by-one", "batch-4"])
def test_four_agents_and_two_restarts_do_every_task_once(
    server: ThrowawayPostgres, tmp_path: Path, batch: int
) -> None:
    url = server.schema_url()
    store = PostgresTaskStore(url)
    tasks = _tasks(2000)
    store.add(*tasks)
    workers = Workers(url, tmp_path, 4, batch)
    for mark in (500, 1200):
        workers.wait(partial(_handled_at_least, workers, mark), f"handle {mark} tasks")
        server.restart()
    workers.wait(lambda: _count_completed(store) == len(tasks), "finish", timeout=300)
    _all_done_once(store, workers, [task.id for task in tasks])
    # Busy agents notice both outages; one line each, never one per try.
    assert workers.outage_lines() == [2, 2, 2, 2]
    store.close()


def test_serve_outlives_an_outage_longer_than_the_store_retries(
    server: ThrowawayPostgres, session: Session, caplog: pytest.LogCaptureFixture
) -> None:
    class Echo(BaseAgent):
        agent_type = "echo"

        def handle_task(self, task: AgentTask, runtime: AgentRuntime) -> AgentResult:
            return AgentResult(task_id=task.id)

    url = server.schema_url()
    store = PostgresTaskStore(url, timeout=1, retry_for=0.5)
    runtime = AgentRuntime("a", "echo", session=session, store=store)
    stop = threading.Event()
    served: list[AgentTask] = []
    thread = threading.Thread(
        target=lambda: served.extend(Echo().serve(runtime, stop, poll_interval=0.5))
    )
    with caplog.at_level(logging.INFO, "monologue.runtime"):
        thread.start()
        time.sleep(0.5)
        server.restart(down_for=3.0)  # six times what the store retries for
        checker = PostgresTaskStore(url)
        checker.add(*_tasks(5))
        deadline = time.monotonic() + 60
        while _count_completed(checker) < 5 and time.monotonic() < deadline:
            assert thread.is_alive()
            time.sleep(0.05)
        stop.set()
        thread.join(30)
        checker.close()
    assert sorted(task.id for task in served) == [task.id for task in _tasks(5)]
    assert any("serving on" in r.getMessage() for r in caplog.records if r.levelno == logging.ERROR)
    runtime.close()
    store.close()
