"""Four real processes share one graph while a fifth keeps reading the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from monologue_runtime import AgentTask, TaskGraphStore, TaskStatus

WORKERS = 4
TASKS = 400
SCRIPT = Path(__file__).with_name("runtime_graph_workers.py")


def _wait_for_files(paths: list[Path], procs: list[subprocess.Popen[str]], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not all(path.exists() for path in paths):
        for proc in procs:
            if proc.poll() is not None:
                raise AssertionError(f"a process ended early: {proc.communicate()[1]}")
        assert time.monotonic() < deadline, "processes did not start in time"
        time.sleep(0.02)


def test_four_processes_complete_every_task_exactly_once(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    store = TaskGraphStore(data_dir)
    # Priorities in a scrambled order, so claims do not simply follow the file.
    store.add(
        *(
            AgentTask(type="echo", id=f"task-{n:03d}", priority=(n * 37) % 11, input={"n": n})
            for n in range(TASKS)
        )
    )
    env = {
        **os.environ,
        "MONOLOGUE_LOAD_PLUGINS": "",  # no installed plugin: only each worker's own counter
        "MONOLOGUE_NARRATOR": "none",
        "MONOLOGUE_NO_CONFIG_FILE": "1",
    }
    go, stop = tmp_path / "go", tmp_path / "stop"
    reader_out = tmp_path / "reader.json"
    worker_outs = [tmp_path / f"worker-{i}.json" for i in range(WORKERS)]

    def start(*args: object) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, str(SCRIPT), *map(str, args)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    procs = [start("read", store.path, reader_out, stop)]
    procs += [start("work", data_dir, f"w{i}", out, go) for i, out in enumerate(worker_outs)]
    try:
        ready = [Path(f"{out}.ready") for out in [reader_out, *worker_outs]]
        _wait_for_files(ready, procs, timeout=60)
        go.touch()
        for proc in procs[1:]:
            _, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
        stop.touch()
        _, err = procs[0].communicate(timeout=30)
        assert procs[0].returncode == 0, err
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    reports = [json.loads(out.read_text()) for out in worker_outs]
    completed = [task_id for report in reports for task_id in report["completed"]]
    assert Counter(completed).most_common(1)[0][1] == 1  # nothing completed twice
    assert sorted(completed) == [f"task-{n:03d}" for n in range(TASKS)]  # nothing lost
    assert all(report["other"] == [] for report in reports)
    assert [report["results_seen"] for report in reports] == [
        len(report["completed"]) for report in reports
    ]
    assert sum(1 for report in reports if report["completed"]) >= 2  # they really shared

    tasks = store.list()
    assert len(tasks) == TASKS
    assert {task.status for task in tasks} == {TaskStatus.COMPLETED}
    assert {task.attempt for task in tasks} == {1}
    owners = {task.id: task.owner for task in tasks}
    for i, report in enumerate(reports):
        assert {owners[task_id] for task_id in report["completed"]} <= {f"w{i}"}

    reader = json.loads(reader_out.read_text())
    assert reader["failures"] == []
    assert reader["reads"] > 0
    assert len(reader["states"]) > 2  # it read while the workers were at it
    assert sorted(p.name for p in data_dir.iterdir()) == [
        "tasks.graph.json",
        "tasks.graph.json.lock",
    ]
