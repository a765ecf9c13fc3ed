"""Processes for test_runtime_processes.py: ``python runtime_graph_workers.py <role> ...``.

``work DATA_DIR AGENT_ID OUT GO``: claim and complete ``echo`` tasks until none is left,
then write what it completed (and how many ``agent_result`` events its pipeline saw) to OUT.
``read GRAPH OUT STOP``: parse the graph file as JSON in a loop until STOP exists, then
write how many reads there were and which failed.
Both touch ``OUT.ready`` once started, and ``work`` waits for the file GO before claiming.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any


def _wait_for(path: Path, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} never appeared")
        time.sleep(0.005)


def work(data_dir: str, agent_id: str, out: str, go: str) -> None:
    from monologue_runtime import AgentResult, AgentRuntime, AgentTask, BaseAgent

    from monologue import hookimpl
    from monologue.events import Event
    from monologue.plugins import get_plugin_manager

    class ResultCounter:
        seen = 0

        @hookimpl
        def on_event(self, event: Event) -> None:
            if event.type == "agent_result":
                self.seen += 1

    class Echo(BaseAgent):
        agent_type = "echo"

        def handle_task(self, task: AgentTask, runtime: AgentRuntime) -> AgentResult:
            return AgentResult(task_id=task.id, artifacts={"n": task.input["n"]})

    counter = ResultCounter()
    get_plugin_manager().register(counter, "counter")
    with AgentRuntime(agent_id, "echo", data_dir=data_dir) as runtime:
        Path(out + ".ready").touch()
        _wait_for(Path(go))
        done = Echo().run(runtime)
    report = {
        "completed": [task.id for task in done if task.status == "completed"],
        "other": [task.id for task in done if task.status != "completed"],
        "results_seen": counter.seen,
    }
    Path(out).write_text(json.dumps(report))


def read(graph: str, out: str, stop: str) -> None:
    path, stop_path = Path(graph), Path(stop)
    reads = 0
    failures: list[str] = []
    completed_counts: set[int] = set()
    Path(out + ".ready").touch()
    while not stop_path.exists():
        reads += 1
        try:
            document: Any = json.loads(path.read_bytes())
            tasks = document["tasks"]
            completed_counts.add(sum(task["status"] == "completed" for task in tasks))
            if len(tasks) != 400:
                failures.append(f"read {reads}: {len(tasks)} tasks")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            failures.append(f"read {reads}: {type(exc).__name__}: {exc}")
        time.sleep(0.001)
    report = {"reads": reads, "failures": failures[:20], "states": sorted(completed_counts)}
    Path(out).write_text(json.dumps(report))


if __name__ == "__main__":
    role, *args = sys.argv[1:]
    if role == "work":
        work(*args)
    else:
        read(*args)
