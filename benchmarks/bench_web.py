"""The web viewer: delivery time from an event being recorded to its arrival at a page, and
the sessions list's response time while other clients load large recordings.

``monologue serve`` runs in its own process on 127.0.0.1 (port chosen by the system), over a
temporary record folder; its clients (httpx) run in this process.

- **Delivery, default durability.** A real decorated agent in another process, recorded by
  ``monologue-recorder`` with its default durability, emits a ``text`` event every 20 ms
  holding the wall-clock time of the emit; an SSE client follows the session's stream. A
  latency is the arrival at the client minus that time: the recorder's batching plus the
  viewer's delivery.
- **Delivery, the viewer's share.** This process appends lines itself, one ``os.write`` of a
  whole line each (as the recorder writes a batch), each stamped with the time it is
  written; 1 client, then 50 (10 with --quick) at once. The server's peak resident memory
  (VmHWM) is read from /proc.
- **The list under load.** Two clients stream two 100 MB recordings (20 MB with --quick)
  from their start, again and again, while ``GET /api/sessions`` is timed every 20 ms; the
  same list idle is the baseline, measured in the same run.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from monologue.events import Event, RecordingHeader
from monologue.recording import event_line

from .harness import Context, Figure, median, percentile

SESSION = "01BENCHWEB000000000000000000"
INTERVAL_S = 0.02
# The agent of the default-durability case: prints its session id, waits for the go file,
# then emits `count` text events `interval` apart, each holding the time of its emit.
_AGENT = """
import sys, time
from pathlib import Path
from monologue import current, emit, monologue

count, interval, go = int(sys.argv[1]), float(sys.argv[2]), Path(sys.argv[3])
durability = {"durability": sys.argv[4]} if len(sys.argv) > 4 else {}

@monologue("bench-web", narrator="none", **durability)
def agent():
    print(current().id, flush=True)
    while not go.exists():
        time.sleep(0.005)
    for _ in range(count):
        emit.text(repr(time.time()))
        time.sleep(interval)

agent()
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MONOLOGUE_")}
    return env | {"MONOLOGUE_NO_CONFIG_FILE": "1", **extra}


@contextmanager
def server(record_dir: Path) -> Iterator[tuple[str, int]]:
    """``monologue serve`` in its own process: its address and pid."""
    env = _env(MONOLOGUE_LOAD_PLUGINS="monologue-web")
    command = [sys.executable, "-m", "monologue", "serve", "--port", "0"]
    process = subprocess.Popen(
        [*command, "--record-dir", str(record_dir)],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None
        first = process.stderr.readline()
        found = re.search(r"at (http://\S+)", first)
        assert found, first
        yield found.group(1), process.pid
    finally:
        process.terminate()
        process.communicate(timeout=10)


def peak_rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"VmHWM:\s+(\d+) kB", status)
    return int(found.group(1)) / 1024 if found else float("nan")


def start_recording(record_dir: Path) -> int:
    path = record_dir / f"{SESSION}.jsonl"
    header = RecordingHeader(session_id=SESSION, agent="bench", started_at=Event(type="x").ts)
    path.write_text(header.to_json() + "\n")
    return os.open(path, os.O_WRONLY | os.O_APPEND)


def write_stamped(fd: int) -> None:
    """One event line holding the time it is written, written as the recorder writes."""
    event = Event(type="text", session_id=SESSION, agent="bench", data={"text": ""})
    event.data["text"] = repr(time.time())
    os.write(fd, (event_line(event) + "\n").encode())


async def follow(
    url: str, expected: int, ready: asyncio.Event, latencies: list[float], waiting: list[int]
) -> None:
    """One client: count itself ready at ``caught_up``, then time each stamped event."""
    import httpx

    received = 0
    async with (
        httpx.AsyncClient(timeout=None) as client,
        client.stream("GET", url) as response,
    ):
        kind = ""
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                kind = line[7:]
                if kind == "caught_up":
                    waiting[0] -= 1
                    if waiting[0] == 0:
                        ready.set()
            elif line.startswith("data: ") and kind == "event":
                event = json.loads(line[6:])
                if event["type"] == "text":
                    latencies.append(time.time() - float(event["data"]["text"]))
                    received += 1
                    if received == expected:
                        return


async def measure(url: str, clients: int, count: int, start: Callable[[], None]) -> list[float]:
    """Start ``clients`` followers; once all caught up, ``start()`` the writing."""
    latencies: list[float] = []
    ready = asyncio.Event()
    waiting = [clients]
    async with asyncio.timeout(120):
        tasks = [
            asyncio.create_task(follow(url, count, ready, latencies, waiting))
            for _ in range(clients)
        ]
        await ready.wait()
        await asyncio.to_thread(start)
        await asyncio.gather(*tasks)
    return latencies


def written_case(clients: int, count: int) -> tuple[list[float], float]:
    """This process writes the lines: the viewer's share of the delivery time."""
    with tempfile.TemporaryDirectory() as folder, server(Path(folder)) as (address, pid):
        fd = start_recording(Path(folder))

        def write_all() -> None:
            for _ in range(count):
                write_stamped(fd)
                time.sleep(INTERVAL_S)

        try:
            url = f"{address}api/sessions/{SESSION}/stream"
            latencies = asyncio.run(measure(url, clients, count, write_all))
        finally:
            os.close(fd)
        return latencies, peak_rss_mb(pid)


def recorded_case(count: int, durability: str | None = None) -> list[float]:
    """A real agent recorded with ``durability`` (the default when ``None``): emit to page."""
    with tempfile.TemporaryDirectory() as folder, server(Path(folder)) as (address, _):
        go = Path(folder).parent / f"{Path(folder).name}.go"
        env = _env(MONOLOGUE_LOAD_PLUGINS="monologue-recorder", MONOLOGUE_RECORD_DIR=folder)
        agent = subprocess.Popen(
            [sys.executable, "-c", _AGENT, str(count), str(INTERVAL_S), str(go)]
            + ([durability] if durability else []),
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            assert agent.stdout is not None
            session_id = agent.stdout.readline().strip()
            assert session_id, "the agent printed no session id"
            url = f"{address}api/sessions/{session_id}/stream"
            return asyncio.run(measure(url, 1, count, go.touch))
        finally:
            agent.wait(timeout=60)
            go.unlink(missing_ok=True)


def write_big_recording(path: Path, size: int) -> None:
    """A finished recording of about ``size`` bytes: tool calls and results, one in ten with
    an output long enough to be cut for the page."""
    session = path.stem
    header = RecordingHeader(session_id=session, agent="big", started_at=Event(type="x").ts)
    call = Event(
        type="tool_call",
        session_id=session,
        agent="big",
        data={"tool_name": "Read", "tool_use_id": "t", "input": {"file_path": "src/module.py"}},
    )
    short = Event(
        type="tool_result",
        session_id=session,
        agent="big",
        data={"tool_use_id": "t", "tool_name": "Read", "output": "line of code\n" * 20},
    )
    long = short.model_copy(update={"data": {**short.data, "output": "x" * 6000}})
    templates = [event_line(e).replace(e.id, "{id}") for e in (call, short, call, long)]
    with path.open("w") as stream:
        stream.write(header.to_json() + "\n")
        written, number = 0, 0
        while written < size:
            for template in templates:
                line = template.replace("{id}", f"EV{number:024d}") + "\n"
                stream.write(line)
                written += len(line)
                number += 1
        done = Event(type="completion", session_id=session, agent="big", data={})
        stream.write(event_line(done) + "\n")
    os.utime(path, (1, 1))  # long settled: a stream of it ends at its end


def list_times(address: str, seconds: float) -> list[float]:
    import httpx

    times = []
    deadline = time.monotonic() + seconds
    with httpx.Client(timeout=30) as client:
        while time.monotonic() < deadline:
            started = time.perf_counter()
            assert client.get(f"{address}api/sessions").status_code == 200
            times.append(time.perf_counter() - started)
            time.sleep(0.02)
    return times


def counted(address: str) -> None:
    """Wait until the server has counted every recording (a large one takes a few looks)."""
    import httpx

    deadline = time.monotonic() + 120
    while True:
        rows = httpx.get(f"{address}api/sessions", timeout=60).json()
        if rows and all(row["counted"] for row in rows):
            return
        assert time.monotonic() < deadline, "the recordings were not counted in 2 minutes"
        time.sleep(0.1)


def list_under_load(size: int, seconds: float) -> tuple[list[float], list[float], int]:
    """The list's response times idle, then while two clients stream two big recordings
    (again and again); and how many bytes those clients received meanwhile."""
    import httpx

    with tempfile.TemporaryDirectory() as folder:
        for number in range(2):
            write_big_recording(Path(folder) / f"BIG{number}.jsonl", size)
        for number in range(20):
            Path(folder, f"SMALL{number}.jsonl").write_text(
                RecordingHeader(
                    session_id=f"SMALL{number}", agent="s", started_at=Event(type="x").ts
                ).to_json()
                + "\n"
            )
        with server(Path(folder)) as (address, _):
            counted(address)
            idle = list_times(address, min(seconds, 3.0))
            stop = threading.Event()
            received = [0, 0]

            def load(number: int) -> None:
                url = f"{address}api/sessions/BIG{number}/stream"
                with httpx.Client(timeout=60) as client:
                    while not stop.is_set():
                        with client.stream("GET", url) as response:
                            for chunk in response.iter_raw():
                                received[number] += len(chunk)
                                if stop.is_set():
                                    break

            loaders = [threading.Thread(target=load, args=(n,), daemon=True) for n in range(2)]
            for loader in loaders:
                loader.start()
            time.sleep(0.5)
            busy = list_times(address, seconds)
            stop.set()
            for loader in loaders:
                loader.join(timeout=30)
        return idle, busy, sum(received)


def run(ctx: Context) -> list[Figure]:
    count = 50 if ctx.quick else 200
    note = f"{count} events, {INTERVAL_S * 1000:.0f} ms apart"
    recorded = recorded_case(count)
    assert len(recorded) == count, len(recorded)
    figures = [
        Figure(
            group="web",
            name="event emitted → at the page, p50, recorder's default durability",
            value=percentile(recorded, 50) * 1000,
            unit="ms",
            note=note + "; a real agent, recorded by monologue-recorder",
        ),
        Figure(
            group="web",
            name="event emitted → at the page, p99, recorder's default durability",
            value=percentile(recorded, 99) * 1000,
            unit="ms",
            target=100,
            compare="max",
            note=note + "; the recorder's batching plus the viewer's delivery",
        ),
    ]
    always = recorded_case(count, "always")
    assert len(always) == count, len(always)
    figures.append(
        Figure(
            group="web",
            name="event emitted → at the page, p99, durability `always`",
            value=percentile(always, 99) * 1000,
            unit="ms",
            note=note + "; each event written (and fsynced) at once",
        )
    )
    for clients, target in ((1, 0.1), (10 if ctx.quick else 50, 1.0)):
        latencies, rss = written_case(clients, count)
        assert len(latencies) == clients * count, len(latencies)
        who = "1 client" if clients == 1 else f"{clients} clients at once"
        figures += [
            Figure(
                group="web",
                name=f"line written → at the page, p50, {who}",
                value=percentile(latencies, 50) * 1000,
                unit="ms",
                note=note,
            ),
            Figure(
                group="web",
                name=f"line written → at the page, p99, {who}",
                value=percentile(latencies, 99) * 1000,
                unit="ms",
                target=target * 1000,
                compare="max",
                note=note + "; the viewer's share (inotify, read, send)",
            ),
            Figure(
                group="web",
                name=f"server peak memory, {who}",
                value=rss,
                unit="MB",
                target=200,
                compare="max",
                note="VmHWM of the `monologue serve` process",
            ),
        ]
    size_mb = 20 if ctx.quick else 100
    idle, busy, received = list_under_load(size_mb << 20, 5.0 if ctx.quick else 15.0)
    idle_p95 = percentile(idle, 95) * 1000
    load_note = (
        f"GET /api/sessions every 20 ms; 2 clients streaming two {size_mb} MB recordings "
        f"received {received / 2**20:.0f} MB meanwhile; idle p95 {idle_p95:.1f} ms"
    )
    figures += [
        Figure(
            group="web",
            name="sessions list, p50, idle",
            value=median(idle) * 1000,
            unit="ms",
            note="the baseline, same run",
        ),
        Figure(
            group="web",
            name=f"sessions list, p50, while 2 clients load {size_mb} MB recordings",
            value=median(busy) * 1000,
            unit="ms",
            note=load_note,
        ),
        Figure(
            group="web",
            name=f"sessions list, p95, while 2 clients load {size_mb} MB recordings",
            value=percentile(busy, 95) * 1000,
            unit="ms",
            target=200,
            compare="max",
            note=load_note,
        ),
    ]
    return figures
