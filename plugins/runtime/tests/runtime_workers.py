"""Processes for test_runtime_processes.py: ``python runtime_workers.py <role> ...``.

``work STORE DATA_DIR AGENT_ID OUT GO``: claim and complete ``echo`` tasks until no task is
left unfinished (waiting for reclaims meanwhile), then write what it completed to OUT.
``hold STORE DATA_DIR AGENT_ID OUT GO COUNT``: claim COUNT tasks, write their ids to OUT,
and wait to be killed.
Both touch ``OUT.ready`` once started, and wait for the file GO before claiming.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

HEARTBEAT_TIMEOUT_S = 1.0


def _wait_for(path: Path, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} never appeared")
        time.sleep(0.005)


def main(args: list[str]) -> None:
    role, store, data_dir, agent_id, out, go, *rest = args
    from monologue_runtime import AgentResult, AgentRuntime, AgentTask, BaseAgent

    class Echo(BaseAgent):
        agent_type = "echo"

        def handle_task(self, task: AgentTask, runtime: AgentRuntime) -> AgentResult:
            return AgentResult(task_id=task.id, artifacts={"n": task.input["n"]})

    with AgentRuntime(
        agent_id,
        "echo",
        heartbeat_interval=HEARTBEAT_TIMEOUT_S / 4,
        heartbeat_timeout=HEARTBEAT_TIMEOUT_S,
        data_dir=data_dir,
        store=store,
    ) as runtime:
        Path(out + ".ready").touch()
        _wait_for(Path(go))
        if role == "hold":
            held = [runtime.poll_next_task() for _ in range(int(rest[0]))]
            Path(out).write_text(json.dumps([task.id for task in held if task is not None]))
            time.sleep(600)
        agent, done = Echo(), []
        while True:
            task = agent.execute_once(runtime)
            if task is not None:
                done.append(task)
                continue
            if not (
                runtime.store.list(status="pending") or runtime.store.list(status="in_progress")
            ):
                break
            runtime.wait_for_work(HEARTBEAT_TIMEOUT_S / 4)
    report = {
        "completed": [task.id for task in done if task.status == "completed"],
        "other": [task.id for task in done if task.status != "completed"],
    }
    Path(out).write_text(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1:])
