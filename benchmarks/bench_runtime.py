"""Task graph throughput: tasks claimed and completed per second by several processes.

Every worker is a real process (spawn, started once for all runs) running
``BaseAgent.run``: each task costs a claim and a completion (``complete_task``), atomic
steps of the store (file store: a journal line, flushed before the step returns;
PostgreSQL: one statement each, the completion committed durably, the claim without
waiting for the disk), plus an ``agent_result`` event through a session pipeline (no
plugins, no narrator). The clock runs from the moment every worker of a run is ready to
the last one finding no work left.

PostgreSQL runs twice: with one task per claim (``BaseAgent.batch_size`` 1, the default:
per task 2 statements, 2 round trips and 2 commits, one of them durable), and with
``batch_size`` :data:`BATCH` (the target rows: one claim statement takes up to 8 tasks,
so per task 1 + 1/8 statements, round trips and commits, and still one durable commit,
the completion's). The agent holds the tasks of a batch it has not started, gives them
back if they wait a heartbeat interval, and a dead agent's are reclaimed after the
heartbeat timeout (``plugins/runtime/README.md``).

The baselines are measured in the same run, interleaved with the runtime's rounds: for the
file store, the same work with 1 process; for PostgreSQL, a plain psycopg loop on a table of
its own in the same server, as one would write it by hand: in one transaction ``SELECT ...
ORDER BY priority DESC LIMIT 1 FOR UPDATE SKIP LOCKED`` and ``UPDATE`` it to in progress,
then ``UPDATE`` it to completed in a second one (per task 7 statements with ``BEGIN`` and
``COMMIT``, 7 round trips, 2 durable commits). PostgreSQL is a throwaway server started
from the machine's binaries (``pytest_monologue.postgres``), on a Unix socket.

A durable commit waits for the server's ``fsync``, so on a slow disk both the runtime and
the plain loop are capped by it: the disk's own fsyncs per second are measured (a file in
the same temporary folder, written and fsync'ed in a loop), and both PostgreSQL runs are
repeated side by side with ``synchronous_commit=off`` on every connection (commits no
longer wait for the disk), to show what the same code does without that cap. On a fast
disk both are bound by CPU instead: the agents, their session threads and the server
share the machine's cores.
"""

from __future__ import annotations

import multiprocessing
import os
import statistics
import tempfile
import time
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from urllib.parse import quote

from .harness import Context, Figure

PROCESSES = (1, 2, 4, 8)
QUICK_PROCESSES = (1, 4)
_TIMEOUT_S = 300
_PLAIN_TABLE = """
CREATE TABLE plain_tasks (
    id bigint PRIMARY KEY, status text NOT NULL, priority integer NOT NULL, owner text,
    payload jsonb NOT NULL, result jsonb
);
CREATE INDEX plain_tasks_ready ON plain_tasks (priority DESC, id) WHERE status = 'pending';
"""
_PLAIN_CLAIM = (
    "SELECT id, payload FROM plain_tasks WHERE status = 'pending' "
    "ORDER BY priority DESC, id LIMIT 1 FOR UPDATE SKIP LOCKED"
)

BATCH = 8
"""``BaseAgent.batch_size`` of the batched PostgreSQL runs."""

Job = tuple[str, str, str, str, int, int]
"""(kind: runtime or plain, store setting or URL, data folder, agent id, processes, batch)"""


def _worker(jobs: Queue[Job | None], barriers: dict[int, Barrier], finished: Queue[float]) -> None:
    """Run jobs until told to stop: each waits for the others of its run, drains the graph
    (or the plain table), and reports when it found no work left."""
    while (job := jobs.get()) is not None:
        kind, store, data_dir, agent_id, size, batch = job
        if kind == "plain":
            _plain_loop(store, agent_id, barriers[size])
        else:
            _runtime_loop(store, data_dir, agent_id, barriers[size], batch)
        finished.put(time.monotonic())


def _runtime_loop(store: str, data_dir: str, agent_id: str, barrier: Barrier, batch: int) -> None:
    from monologue_runtime import AgentResult, AgentRuntime, AgentTask, BaseAgent

    from monologue import Session
    from monologue.plugins import MonologuePluginManager

    class Echo(BaseAgent):
        agent_type = "bench"
        batch_size = batch

        def handle_task(self, task: AgentTask, runtime: AgentRuntime) -> AgentResult:
            return AgentResult(task_id=task.id, artifacts={"n": task.input["n"]})

    session = Session(agent_id, narrator="none", pm=MonologuePluginManager())
    with (
        session,
        AgentRuntime(agent_id, "bench", data_dir=data_dir, session=session, store=store) as rt,
    ):
        barrier.wait(timeout=_TIMEOUT_S)
        Echo().run(rt)


def _plain_loop(url: str, agent_id: str, barrier: Barrier) -> None:
    import psycopg
    from psycopg.types.json import Jsonb

    with psycopg.connect(url) as conn:
        barrier.wait(timeout=_TIMEOUT_S)
        while True:
            with conn.transaction():
                row = conn.execute(_PLAIN_CLAIM).fetchone()
                if row is None:
                    return
                conn.execute(
                    "UPDATE plain_tasks SET status = 'in_progress', owner = %s WHERE id = %s",
                    (agent_id, row[0]),
                )
            with conn.transaction():
                conn.execute(
                    "UPDATE plain_tasks SET status = 'completed', result = %s WHERE id = %s",
                    (Jsonb({"n": row[1]["n"]}), row[0]),
                )


class _Workers:
    """Eight processes (spawn), started once: a run uses the first ``n`` of them, so that
    every run measures claims, not interpreter start-up."""

    def __init__(self) -> None:
        spawn = multiprocessing.get_context("spawn")
        self._barriers = {n: spawn.Barrier(n + 1) for n in PROCESSES}
        self._jobs: list[Queue[Job | None]] = [spawn.Queue() for _ in range(max(PROCESSES))]
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

    def _drain(self, kind: str, store: str, folder: str, processes: int, batch: int = 1) -> float:
        """Start ``processes`` workers on a seeded store; seconds until the last is done."""
        for i in range(processes):
            self._jobs[i].put((kind, store, folder, f"w{i}", processes, batch))
        self._barriers[processes].wait(timeout=_TIMEOUT_S)
        started = time.monotonic()
        ends = [self._finished.get(timeout=_TIMEOUT_S) for _ in range(processes)]
        return max(ends) - started

    def runtime_rate(self, store: str, processes: int, tasks: int, batch: int = 1) -> float:
        """Seed ``tasks`` tasks, let ``processes`` workers (agents with ``batch_size``
        ``batch``) drain them; tasks per second."""
        from monologue_runtime import AgentTask, open_store

        with tempfile.TemporaryDirectory(prefix="bench-runtime-") as folder:
            graph = open_store(store, data_dir=folder)
            graph.add(
                *(
                    AgentTask(type="bench", priority=n % 7, input={"n": n, "payload": "x" * 64})
                    for n in range(tasks)
                )
            )
            seconds = self._drain("runtime", store, folder, processes, batch)
            left = [task.id for task in graph.list() if task.status != "completed"]
            graph.close()
        if left:
            raise RuntimeError(f"{len(left)} task(s) were not completed")
        return tasks / seconds

    def plain_rate(self, url: str, processes: int, tasks: int) -> float:
        """The same with the plain psycopg loop, on a table of its own in ``url``'s schema."""
        import psycopg
        from psycopg.types.json import Jsonb

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(_PLAIN_TABLE)
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO plain_tasks (id, status, priority, payload) "
                    "VALUES (%s, 'pending', %s, %s)",
                    [(n, n % 7, Jsonb({"n": n, "payload": "x" * 64})) for n in range(tasks)],
                )
            seconds = self._drain("plain", url, "", processes)
            left = conn.execute("SELECT count(*) FROM plain_tasks WHERE status <> 'completed'")
            row = left.fetchone()
        if row is None or row[0]:
            raise RuntimeError("the plain loop left tasks unfinished")
        return tasks / seconds


def _disk_fsyncs_per_s(seconds: float = 1.0) -> float:
    """Small appends, each fsync'ed, in the temporary folder the server's data lives in."""
    with tempfile.TemporaryDirectory(prefix="bench-fsync-") as folder:
        fd = os.open(os.path.join(folder, "probe"), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            count = 0
            started = time.monotonic()
            while (elapsed := time.monotonic() - started) < seconds:
                os.write(fd, b"x" * 128)
                os.fsync(fd)
                count += 1
        finally:
            os.close(fd)
    return count / elapsed


def _without_waiting_for_the_disk(url: str) -> str:
    """``url`` with ``synchronous_commit=off`` for every connection made from it."""
    marker = "&options="
    if marker not in url:
        return f"{url}{marker}{quote('-csynchronous_commit=off')}"
    return url.replace(marker, marker + quote("-csynchronous_commit=off "), 1)


def run(ctx: Context) -> list[Figure]:
    from pytest_monologue.postgres import ThrowawayPostgres

    processes = QUICK_PROCESSES if ctx.quick else PROCESSES
    file_tasks = 200 if ctx.quick else 600
    pg_tasks = 400 if ctx.quick else 2000
    rounds = 1 if ctx.quick else 3
    files: dict[int, list[float]] = {n: [] for n in processes}
    database: dict[int, list[float]] = {n: [] for n in processes}
    batched: list[float] = []
    plain: list[float] = []
    fast: list[float] = []
    fast_plain: list[float] = []
    fsyncs = _disk_fsyncs_per_s(0.5 if ctx.quick else 2.0)
    workers = _Workers()
    try:
        with ThrowawayPostgres() as server:
            # Interleaved rounds, the pairs a ratio compares run back to back (1 then 4
            # processes; the runtime then the plain loop), and each ratio is the median of
            # its rounds' ratios: the machine and its disk are shared, and a burst of
            # someone else's work should not decide a ratio.
            for _ in range(rounds):
                for n in sorted(processes, key=lambda n: n not in (1, 4)):
                    files[n].append(workers.runtime_rate("file", n, file_tasks))
                    database[n].append(workers.runtime_rate(server.schema_url(), n, pg_tasks))
                    if n == 4:
                        url = server.schema_url()
                        batched.append(workers.runtime_rate(url, 4, pg_tasks, BATCH))
                        plain.append(workers.plain_rate(server.schema_url(), 4, pg_tasks))
                        url = _without_waiting_for_the_disk(server.schema_url())
                        fast.append(workers.runtime_rate(url, 4, pg_tasks, BATCH))
                        url = _without_waiting_for_the_disk(server.schema_url())
                        fast_plain.append(workers.plain_rate(url, 4, pg_tasks))
    finally:
        workers.close()
    file_rate = {n: statistics.median(files[n]) for n in processes}
    pg_rate = {n: statistics.median(database[n]) for n in processes}
    kept = f"median of {rounds}"
    batch_note = f"BaseAgent.batch_size = {BATCH}: one claim statement per {BATCH} tasks"
    return [
        *_figures("file", file_rate, f"{file_tasks} tasks; claim + complete, flushed; {kept}"),
        Figure(
            group="runtime",
            name="file: 4 processes / 1 process",
            value=statistics.median(a / b for a, b in zip(files[4], files[1], strict=True)),
            unit="x",
            target=1.0,
            compare="min",
            note=f"shared flushes (group commit); run back to back, {kept} ratios",
        ),
        *_figures("postgresql", pg_rate, f"{pg_tasks} tasks; one task per claim; {kept}"),
        Figure(
            group="runtime",
            name="postgresql: one task per claim, 4 processes / plain loop",
            value=statistics.median(a / b for a, b in zip(database[4], plain, strict=True)),
            unit="x",
            note=f"batch_size 1 (the default); run back to back, {kept} ratios",
        ),
        Figure(
            group="runtime",
            name="postgresql: claims/s, 4 processes (target)",
            value=statistics.median(batched),
            unit="claims/s",
            target=1000.0,
            compare="min",
            note=f"{batch_note}; each completion its own durable commit; {pg_tasks} tasks",
        ),
        Figure(
            group="runtime",
            name="plain psycopg SKIP LOCKED loop: claims/s, 4 processes (baseline)",
            value=statistics.median(plain),
            unit="claims/s",
            note=f"{pg_tasks} tasks; claim txn + complete txn, same server; {kept}",
        ),
        Figure(
            group="runtime",
            name="postgresql: 4 processes / plain loop",
            value=statistics.median(a / b for a, b in zip(batched, plain, strict=True)),
            unit="x",
            target=0.8,
            compare="min",
            note=f"{batch_note}, with its events and session; back to back, {kept} ratios",
        ),
        Figure(
            group="runtime",
            name="disk: fsyncs/s (caps durable commits)",
            value=fsyncs,
            unit="fsyncs/s",
            note="128-byte appends, each fsync'ed, in the temporary folder; same run",
        ),
        Figure(
            group="runtime",
            name="postgresql, synchronous_commit=off: claims/s, 4 processes",
            value=statistics.median(fast),
            unit="claims/s",
            target=1000.0,
            compare="min",
            note=f"commits do not wait for the disk (both runs); batch {BATCH}; {kept}",
        ),
        Figure(
            group="runtime",
            name="plain SKIP LOCKED loop, synchronous_commit=off: claims/s, 4 processes",
            value=statistics.median(fast_plain),
            unit="claims/s",
            note=f"baseline of the row above; {pg_tasks} tasks; {kept}",
        ),
        Figure(
            group="runtime",
            name="postgresql / plain loop, both synchronous_commit=off",
            value=statistics.median(a / b for a, b in zip(fast, fast_plain, strict=True)),
            unit="x",
            target=0.8,
            compare="min",
            note=f"batch {BATCH}; run back to back, {kept} ratios",
        ),
    ]


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
