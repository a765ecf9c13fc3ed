"""The web viewer's delivery time: from a narrative being recorded to its arrival at a page.

``monologue serve`` runs in its own process on 127.0.0.1 (port chosen by the system), over a
temporary record folder. This process appends narratives to a recording the way the
recorder does (one ``os.write`` of a whole line to an ``O_APPEND`` file, the line made by
``monologue.recording.event_line``), each stamped with the wall-clock time it was written,
while SSE clients (httpx, in this process) follow the session's event stream; a narrative's
latency is its arrival time at a client minus the time it was written. Run with 1 client,
then 50 at once; the server's peak resident memory (VmHWM) is read from /proc for both.
Bounded: 200 narratives 20 ms apart per run (50 and 10 clients with --quick).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from monologue.events import Event, RecordingHeader
from monologue.recording import event_line

from .harness import Context, Figure, percentile

SESSION = "01BENCHWEB000000000000000000"
INTERVAL_S = 0.02


@contextmanager
def server(record_dir: Path) -> Iterator[tuple[str, int]]:
    """``monologue serve`` in its own process: its address and pid."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MONOLOGUE_")}
    env |= {"MONOLOGUE_NO_CONFIG_FILE": "1", "MONOLOGUE_LOAD_PLUGINS": "monologue-web"}
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


def record_narrative(fd: int, number: int) -> None:
    event = Event(
        type="narrative",
        visibility="user",
        session_id=SESSION,
        agent="bench",
        data={"text": f"I read file {number}.", "narrator": "bench", "reason": "buffer"},
    )
    event.data["written_at"] = time.time()
    os.write(fd, (event_line(event) + "\n").encode())


async def follow(
    url: str, expected: int, ready: asyncio.Event, latencies: list[float], waiting: list[int]
) -> None:
    """One client: count itself ready at ``caught_up``, then time each narrative."""
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
                data = json.loads(line[6:])["data"]
                if "written_at" in data:
                    latencies.append(time.time() - data["written_at"])
                    received += 1
                    if received == expected:
                        return


async def measure(url: str, fd: int, clients: int, narratives: int) -> list[float]:
    latencies: list[float] = []
    ready = asyncio.Event()
    waiting = [clients]
    async with asyncio.timeout(60):
        tasks = [
            asyncio.create_task(follow(url, narratives, ready, latencies, waiting))
            for _ in range(clients)
        ]
        await ready.wait()
        for number in range(narratives):
            record_narrative(fd, number)
            await asyncio.sleep(INTERVAL_S)
        await asyncio.gather(*tasks)
    return latencies


def run_case(clients: int, narratives: int) -> tuple[list[float], float]:
    with tempfile.TemporaryDirectory() as folder, server(Path(folder)) as (address, pid):
        fd = start_recording(Path(folder))
        try:
            url = f"{address}api/sessions/{SESSION}/stream"
            latencies = asyncio.run(measure(url, fd, clients, narratives))
        finally:
            os.close(fd)
        return latencies, peak_rss_mb(pid)


def run(ctx: Context) -> list[Figure]:
    narratives = 50 if ctx.quick else 200
    figures: list[Figure] = []
    for clients, target in ((1, 0.25), (10 if ctx.quick else 50, 1.0)):
        latencies, rss = run_case(clients, narratives)
        assert len(latencies) == clients * narratives, len(latencies)
        who = "1 client" if clients == 1 else f"{clients} clients at once"
        note = f"{narratives} narratives, {INTERVAL_S * 1000:.0f} ms apart"
        figures += [
            Figure(
                group="web",
                name=f"narrative recorded → at the page, p50, {who}",
                value=percentile(latencies, 50) * 1000,
                unit="ms",
                note=note,
            ),
            Figure(
                group="web",
                name=f"narrative recorded → at the page, p99, {who}",
                value=percentile(latencies, 99) * 1000,
                unit="ms",
                target=target * 1000,
                compare="max",
                note=note,
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
    return figures
