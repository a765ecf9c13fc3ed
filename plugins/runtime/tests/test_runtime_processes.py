"""Real processes share one graph, and one of them is SIGKILLed while it holds claims."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest
from monologue_runtime import AgentResultPayload, AgentTask, TaskStatus, TaskStore
from runtime_workers import HEARTBEAT_TIMEOUT_S

SCRIPT = Path(__file__).with_name("runtime_workers.py")
HELD = 5


def _wait_for_files(paths: list[Path], procs: list[subprocess.Popen[str]], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not all(path.exists() for path in paths):
        for proc in procs:
            if proc.poll() is not None:
                raise AssertionError(f"a process ended early: {proc.communicate()[1]}")
        assert time.monotonic() < deadline, "processes did not start in time"
        time.sleep(0.02)


@pytest.mark.parametrize(
    ("store_setting", "processes", "tasks", "batch"),
    [
        ("file", 4, 400, 1),
        ("postgresql", 8, 2000, 1),
        # BaseAgent.batch_size: the dead agent held a batch, most of it not started.
        ("file", 3, 200, 4),
        ("postgresql", 4, 600, 4),
    ],
    indirect=["store_setting"],
)
def test_every_task_completes_once_though_a_process_is_killed_holding_claims(
    *,
    store: TaskStore,
    store_setting: str,
    data_dir: Path,
    tmp_path: Path,
    processes: int,
    tasks: int,
    batch: int,
) -> None:
    # Priorities in a scrambled order, so claims do not simply follow the order added.
    store.add(
        *(
            AgentTask(type="echo", id=f"task-{n:04d}", priority=(n * 37) % 11, input={"n": n})
            for n in range(tasks)
        )
    )
    env = {
        **os.environ,
        "MONOLOGUE_LOAD_PLUGINS": "",
        "MONOLOGUE_NARRATOR": "none",
        "MONOLOGUE_NO_CONFIG_FILE": "1",
        "WORKER_BATCH": str(batch),
    }
    go = tmp_path / "go"
    outs = [tmp_path / f"worker-{i}.json" for i in range(processes)]

    def start(role: str, i: int, *extra: object) -> subprocess.Popen[str]:
        args = [role, store_setting, data_dir, f"w{i}", outs[i], go, *extra]
        return subprocess.Popen(
            [sys.executable, str(SCRIPT), *map(str, args)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    victim = start("hold" if batch == 1 else "hold-batch", 0, HELD)
    workers = [start("work", i) for i in range(1, processes)]
    seen_sizes: list[int] = []
    reading = threading.Event()

    def read_while_they_work() -> None:
        while not reading.is_set():
            seen_sizes.append(len(store.list()))
            time.sleep(0.05)

    reader = threading.Thread(target=read_while_they_work)
    try:
        _wait_for_files([Path(f"{out}.ready") for out in outs], [victim, *workers], 120)
        go.touch()
        reader.start()
        _wait_for_files([outs[0]], [victim], 60)
        victim.send_signal(signal.SIGKILL)
        victim.wait(10)
        for proc in workers:
            _, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
    finally:
        reading.set()
        if reader.is_alive():
            reader.join()
        for proc in [victim, *workers]:
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    held = json.loads(outs[0].read_text())
    reports = [json.loads(out.read_text()) for out in outs[1:]]
    every = [f"task-{n:04d}" for n in range(tasks)]
    completed = [task_id for report in reports for task_id in report["completed"]]
    assert len(held) == HELD
    assert Counter(completed).most_common(1)[0][1] == 1  # nothing completed twice
    assert sorted(completed) == every  # nothing lost, the dead process's tasks included
    assert all(report["other"] == [] for report in reports)
    assert sum(1 for report in reports if report["completed"]) >= 2  # they really shared
    assert set(seen_sizes) == {tasks}  # readers always saw the whole graph

    stored = {task.id: task for task in store.list()}
    assert {task.status for task in stored.values()} == {TaskStatus.COMPLETED}
    assert {task_id for task_id, task in stored.items() if task.attempt == 2} == set(held)

    reclaim_at = {e.task_id: e.at for e in store.events() if e.data.get("retrying")}
    results: dict[str, list[AgentResultPayload]] = {task_id: [] for task_id in every}
    for event in store.events():
        assert event.type == "agent_result"
        results[event.task_id].append(AgentResultPayload.model_validate(event.data))
    for task_id, found in results.items():
        if task_id not in held:
            assert [(e.status, e.attempt) for e in found] == [("completed", 1)], task_id
            continue
        reclaim, done = found  # each exactly once: the reclaim, then the completion
        assert (reclaim.retrying, reclaim.attempt) == (True, 1), task_id
        assert (done.status, done.attempt) == ("completed", 2), task_id
        assert reclaim.error is not None and "no heartbeat from 'w0'" in reclaim.error.reason
        # Taken back only once the dead owner had been silent for the heartbeat timeout.
        last_seen = datetime.fromisoformat(str(reclaim.error.details["last_heartbeat_at"]))
        assert (reclaim_at[task_id] - last_seen).total_seconds() >= HEARTBEAT_TIMEOUT_S
