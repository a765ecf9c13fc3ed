"""Task graph throughput: claims per second with 1, 2, 4 and 8 processes, on each store.

Every worker is a real process (spawn, started once for all runs) running
``BaseAgent.run``: each task costs a claim (``poll_next_task``) and a completion
(``complete_task``), two atomic steps of the store (file store: a journal line, flushed
before the step returns; PostgreSQL: a transaction, the completion committed durably, the
claim without waiting for the disk), plus an ``agent_result`` event through a session
pipeline (no plugins, no narrator). The clock runs from the moment every worker of a run is
ready to the last one finding no work left. PostgreSQL is a throwaway server started from
the machine's binaries (``monologue_runtime.testing``), on a Unix socket.
"""

from __future__ import annotations

import multiprocessing
import tempfile
import time
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier

from .harness import Context, Figure

PROCESSES = (1, 2, 4, 8)
_TIMEOUT_S = 300


def _worker(
    jobs: Queue[tuple[str, str, str, int] | None],
    barriers: dict[int, Barrier],
    finished: Queue[float],
) -> None:
    """Run jobs until told to stop: each opens a runtime, waits for the others of its run,
    drains the graph, and reports when it found no work left."""
    from monologue_runtime import AgentResult, AgentRuntime, AgentTask, BaseAgent

    from monologue import Session
    from monologue.plugins import MonologuePluginManager

    class Echo(BaseAgent):
        agent_type = "bench"

        def handle_task(self, task: AgentTask, runtime: AgentRuntime) -> AgentResult:
            return AgentResult(task_id=task.id, artifacts={"n": task.input["n"]})

    while (job := jobs.get()) is not None:
        store, data_dir, agent_id, size = job
        session = Session(agent_id, narrator="none", pm=MonologuePluginManager())
        with (
            session,
            AgentRuntime(agent_id, "bench", data_dir=data_dir, session=session, store=store) as rt,
        ):
            barriers[size].wait(timeout=_TIMEOUT_S)
            Echo().run(rt)
        finished.put(time.monotonic())


class _Workers:
    """Eight processes (spawn), started once: a run uses the first ``n`` of them, so that
    every run measures claims, not interpreter start-up."""

    def __init__(self) -> None:
        spawn = multiprocessing.get_context("spawn")
        self._barriers = {n: spawn.Barrier(n + 1) for n in PROCESSES}
        self._jobs: list[Queue[tuple[str, str, str, int] | None]] = [
            spawn.Queue() for _ in range(max(PROCESSES))
        ]
        self._finished: Queue[float] = spawn.Queue()
        self._procs = [
            spawn.Process(target=_worker, args=(jobs, self._barriers, self._finished))
            for jobs in self._jobs
        ]
        for proc in self._procs:
            proc.start()

    def close(self) -> None:
        for jobs in self._jobs:
            jobs.put(None)
        for proc in self._procs:
            proc.join(timeout=60)
            if proc.exitcode != 0:
                raise RuntimeError(f"benchmark worker {proc.name} failed ({proc.exitcode})")

    def claims_per_second(self, store: str, processes: int, tasks: int) -> float:
        """Seed ``tasks`` tasks, let ``processes`` workers drain them; tasks per second."""
        from monologue_runtime import AgentTask, open_store

        with tempfile.TemporaryDirectory(prefix="bench-runtime-") as folder:
            graph = open_store(store, data_dir=folder)
            graph.add(
                *(
                    AgentTask(type="bench", priority=n % 7, input={"n": n, "payload": "x" * 64})
                    for n in range(tasks)
                )
            )
            for i in range(processes):
                self._jobs[i].put((store, folder, f"w{i}", processes))
            self._barriers[processes].wait(timeout=_TIMEOUT_S)
            started = time.monotonic()
            ends = [self._finished.get(timeout=_TIMEOUT_S) for _ in range(processes)]
            left = [task.id for task in graph.list() if task.status != "completed"]
            graph.close()
        if left:
            raise RuntimeError(f"{len(left)} task(s) were not completed")
        return tasks / (max(ends) - started)


def _figures(label: str, rates: dict[int, float], note: str) -> list[Figure]:
    return [
        Figure(
            group="runtime",
            name=f"{label}: claims/s, {n} process{'es' if n > 1 else ''}",
            value=rate,
            unit="claims/s",
            note=note,
        )
        for n, rate in rates.items()
    ]


def run(ctx: Context) -> list[Figure]:
    from monologue_runtime.testing import ThrowawayPostgres

    file_tasks = 200 if ctx.quick else 500
    pg_tasks = 400 if ctx.quick else 1500
    rounds = 1 if ctx.quick else 2
    files: dict[int, float] = {}
    database: dict[int, float] = {}
    workers = _Workers()
    try:
        with ThrowawayPostgres() as server:
            # Interleaved, best of the rounds: the machine is shared, and a burst of someone
            # else's work (or disk flushes) should not decide a ratio.
            for _ in range(rounds):
                for n in PROCESSES:
                    rate = workers.claims_per_second("file", n, file_tasks)
                    files[n] = max(files.get(n, 0.0), rate)
                    rate = workers.claims_per_second(server.schema_url(), n, pg_tasks)
                    database[n] = max(database.get(n, 0.0), rate)
    finally:
        workers.close()
    return [
        *_figures(
            "file", files, f"{file_tasks} tasks; claim + complete, flushed; best of {rounds}"
        ),
        Figure(
            group="runtime",
            name="file: 4 processes / 1 process",
            value=files[4] / files[1],
            unit="x",
            target=1.0,
            compare="min",
            note="journal appends under the lock, flushes after it; measured side by side",
        ),
        *_figures("postgresql", database, f"{pg_tasks} tasks; claim + complete; best of {rounds}"),
        Figure(
            group="runtime",
            name="postgresql: claims/s, 4 processes (target)",
            value=database[4],
            unit="claims/s",
            target=1000.0,
            compare="min",
            note="FOR UPDATE SKIP LOCKED; a throwaway server on this machine's 2 cores",
        ),
    ]
