"""Processes for test_runtime_processes.py: ``python runtime_workers.py <role> ...``.

``work STORE DATA_DIR AGENT_ID OUT GO``: claim and complete ``echo`` tasks until no task is
left unfinished (waiting for reclaims meanwhile), then write what it completed to OUT.
``hold STORE DATA_DIR AGENT_ID OUT GO COUNT``: claim COUNT tasks, write their ids to OUT,
and wait to be killed. ``hold-batch``: the same, through ``BaseAgent`` with a batch of
COUNT, stuck in the first task of the batch.
With ``WORKER_BATCH=N``, ``work`` and ``serve`` claim N tasks at a time.
``serve STORE DATA_DIR AGENT_ID OUT GO``: ``BaseAgent.serve`` until SIGTERM, appending the id
of every task it handles to ``OUT.handled`` as it starts it (a task's ``input["sleep"]``
makes it last that long), then write what it completed to OUT. Logs to stderr.
All touch ``OUT.ready`` once started, and wait for the file GO before claiming.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path

# Long enough that a live worker starved of CPU (8 of them on 2 cores, next to another tox
# environment) keeps its claims; the killed one's are still taken back within the run.
HEARTBEAT_TIMEOUT_S = 3.0


def _wait_for(path: Path, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} never appeared")
        time.sleep(0.005)


def _killed_holding(out: str, task_ids: list[str]) -> None:
    # Renamed into place: the test kills this process as soon as OUT exists.
    Path(out + ".tmp").write_text(json.dumps(task_ids))
    os.replace(out + ".tmp", out)
    time.sleep(600)


def main(args: list[str]) -> None:
    role, store, data_dir, agent_id, out, go, *rest = args
    from monologue_runtime import AgentResult, AgentRuntime, AgentTask, BaseAgent

    handled = os.open(out + ".handled", os.O_WRONLY | os.O_APPEND | os.O_CREAT)

    class Echo(BaseAgent):
        agent_type = "echo"
        batch_size = int(os.environ.get("WORKER_BATCH", "1"))

        def handle_task(self, task: AgentTask, runtime: AgentRuntime) -> AgentResult:
            os.write(handled, f"{task.id}\n".encode())
            time.sleep(float(str(task.input.get("sleep", 0))))
            return AgentResult(task_id=task.id, artifacts={"n": task.input["n"]})

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s %(message)s")
    heartbeat_timeout = float(os.environ.get("WORKER_HEARTBEAT_TIMEOUT_S", HEARTBEAT_TIMEOUT_S))

    with AgentRuntime(
        agent_id,
        "echo",
        heartbeat_interval=heartbeat_timeout / 4,
        heartbeat_timeout=heartbeat_timeout,
        data_dir=data_dir,
        store=store,
    ) as runtime:
        Path(out + ".ready").touch()
        _wait_for(Path(go))
        if role == "hold":
            held = [runtime.poll_next_task() for _ in range(int(rest[0]))]
            _killed_holding(out, [t.id for t in held if t is not None])
        if role == "hold-batch":

            class Stuck(BaseAgent):
                agent_type = "echo"
                batch_size = int(rest[0])

                def handle_task(self, task: AgentTask, runtime: AgentRuntime) -> AgentResult:
                    mine = runtime.store.list(status="in_progress")
                    _killed_holding(out, [t.id for t in mine if t.owner == agent_id])
                    raise AssertionError("never here")

            Stuck().execute_once(runtime)
        agent, done = Echo(), []
        if role == "serve":
            stop = threading.Event()
            signal.signal(signal.SIGTERM, lambda *_: stop.set())
            done = agent.serve(runtime, stop)
        while role == "work":
            task = agent.execute_once(runtime)
            if task is not None:
                done.append(task)
                continue
            if not (
                runtime.store.list(status="pending") or runtime.store.list(status="in_progress")
            ):
                break
            runtime.wait_for_work(heartbeat_timeout / 4)
    report = {
        "completed": [task.id for task in done if task.status == "completed"],
        "other": [task.id for task in done if task.status != "completed"],
    }
    Path(out).write_text(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1:])
