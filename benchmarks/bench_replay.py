"""Replay throughput, and what recording costs an agent.

1. A recording of 50,000 events (written by the recorder itself, into a temporary folder):
   reading alone (``read_recording``, no dispatch), and the full replay through the default
   plugin set with the narrator set to none and with the template narrator (on the first
   20,000 events), each as a ratio to plain ``json.loads`` of the same lines, in one run
   (issue 22's targets: 1.0, 0.5 and 0.1).
2. The same for the Claude traces of ../shared, when present (replay against ``json.loads``
   of the same messages).
3. The recorder's cost per event (batch durability): dispatch with the recorder loaded,
   next to dispatch with no plugin at all.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from monologue import Session
from monologue.events import Event
from monologue.plugins import MonologuePluginManager, use_plugin_manager

from .defaults import agent_events, default_plugins, scratch_config
from .harness import Context, Figure, best_of, timed

CLAUDE_TRACES = ("claude-code-transcript", "claude-stream-json")


class _Silent:
    """A replay view that shows nothing: the figure is the pipeline's, not the terminal's."""

    def event(self, event: Event) -> None:
        pass

    def narrative(self, narrative: Event, at: datetime) -> None:
        pass


def record_session(folder: Path, count: int) -> Path:
    """A real recording of ``count`` agent events, written by the recorder."""
    config = scratch_config(folder)
    with (
        default_plugins(only=("recorder",)) as manager,
        Session("bench", pm=manager, narrator="none", **config) as s,
    ):
        agent_events(s, count)
    return folder / "sessions" / f"{s.id}.jsonl"


def replay_seconds(path: Path, narrator: str = "none") -> tuple[float, int]:
    from monologue.replay._replay import Driver, replay

    started = time.perf_counter()
    summary = replay(Driver(path, _Silent(), config={"narrator": narrator}))
    assert summary.problem is None, summary.problem
    return time.perf_counter() - started, summary.events


def json_loads_seconds(paths: list[Path]) -> float:
    """Plain ``json.loads`` of the same data: each line (or a JSON array whole)."""
    started = time.perf_counter()
    for path in paths:
        with path.open("rb") as stream:
            if stream.read(1) == b"[":
                stream.seek(0)
                json.loads(stream.read())
                continue
            stream.seek(0)
            for line in stream:
                json.loads(line)
    return time.perf_counter() - started


def read_seconds(path: Path) -> float:
    from monologue.recording import read_recording

    started = time.perf_counter()
    for _ in read_recording(path):
        pass
    return time.perf_counter() - started


def interleaved(
    rounds: int, baseline: Callable[[], float], measured: Callable[[], float]
) -> tuple[float, float]:
    """The best of ``rounds`` timings of each, taken in turn."""
    pairs = [(baseline(), measured()) for _ in range(rounds)]
    return min(b for b, _ in pairs), min(m for _, m in pairs)


def head(path: Path, lines: int, into: Path) -> Path:
    """The first ``lines`` lines of a recording (its header and events), as a new file."""
    with path.open("rb") as source, into.open("wb") as out:
        for _, line in zip(range(lines), source, strict=False):
            out.write(line)
    return into


def own_format(ctx: Context) -> list[Figure]:
    count = 10_000 if ctx.quick else 50_000
    narrated = 4_000 if ctx.quick else 20_000
    rounds = 1 if ctx.quick else 3  # the best of several, as every other timing here
    with tempfile.TemporaryDirectory() as tmp:
        path = record_session(Path(tmp), count)
        short = head(path, narrated + 1, Path(tmp) / "short.jsonl")
        # Each figure and its json.loads baseline are timed in alternation, so that a burst
        # of load on this shared machine falls on both alike; the best of each is kept.
        loads, reading = interleaved(
            5, lambda: json_loads_seconds([path]), lambda: read_seconds(path)
        )
        with default_plugins():
            loads_r, replayed = interleaved(
                3, lambda: json_loads_seconds([path]), lambda: replay_seconds(path)[0]
            )
            short_loads, templated = interleaved(
                rounds,
                lambda: json_loads_seconds([short]),
                lambda: replay_seconds(short, "template")[0],
            )
        events = replay_seconds(path)[1]
    json_rate = events / loads
    note = f"{events:,} events, best of 3; json.loads {loads / events * 1e6:.1f} µs/line"
    return [
        Figure(
            group="replay",
            name="reading a recording (read_recording), no dispatch",
            value=loads / reading,
            unit="x json.loads",
            target=1.0,
            compare="min",
            note=f"{events / reading:,.0f} events/s, {reading / events * 1e6:.1f} µs/event; {note}",
        ),
        Figure(
            group="replay",
            name="full replay, narrator none, default plugin set",
            value=loads_r / replayed,
            unit="x json.loads",
            target=0.5,
            compare="min",
            note=f"{events / replayed:,.0f} events/s, {replayed / events * 1e6:.1f} µs/event",
        ),
        Figure(
            group="replay",
            name="full replay, template narrator, default plugin set",
            value=short_loads / templated,
            unit="x json.loads",
            target=0.1,
            compare="min",
            note=f"{narrated:,} events, {templated / narrated * 1e6:.1f} µs/event, "
            f"best of {rounds}",
        ),
        Figure(
            group="replay",
            name="plain json.loads of the same lines",
            value=json_rate,
            unit="lines/s",
            note=note,
        ),
    ]


def claude_traces(ctx: Context) -> list[Figure]:
    if ctx.shared_traces is None:
        return []
    paths = sorted(
        path
        for folder in CLAUDE_TRACES
        if (ctx.shared_traces / folder).is_dir()
        for path in (ctx.shared_traces / folder).iterdir()
    )
    if not paths:
        return []
    rounds = 5 if ctx.quick else 20
    with default_plugins("claude"):
        events = sum(replay_seconds(path)[1] for path in paths)

        def replay_all() -> float:
            return sum(replay_seconds(path)[0] for _ in range(rounds) for path in paths)

        replayed = best_of(3, replay_all)
    loads = best_of(3, lambda: sum(json_loads_seconds(paths) for _ in range(rounds)))
    return [
        Figure(
            group="replay",
            name=f"replay of the {len(paths)} Claude traces, narration off",
            value=events * rounds / replayed,
            unit="events/s",
            note=f"{events} events; json.loads of the same messages takes "
            f"{loads / replayed:.2f} of the replay's time",
        )
    ]


def recorder_cost(ctx: Context) -> list[Figure]:
    count = 20_000 if ctx.quick else 100_000

    def dispatch(manager: MonologuePluginManager, folder: Path) -> float:
        with Session("bench", pm=manager, narrator="none", **scratch_config(folder)) as s:
            return timed(lambda: agent_events(s, count))

    with tempfile.TemporaryDirectory() as tmp:
        with default_plugins(only=("recorder",)) as manager:
            recorded = best_of(3, lambda: dispatch(manager, Path(tmp)))
        bare = MonologuePluginManager()
        with use_plugin_manager(bare):
            unrecorded = best_of(3, lambda: dispatch(bare, Path(tmp)))
    cost_us = (recorded - unrecorded) / count * 1e6
    return [
        Figure(
            group="recorder",
            name="recording cost per event (batch durability)",
            value=cost_us,
            unit="µs",
            note=f"{count / recorded:,.0f} events/s recorded vs {count / unrecorded:,.0f} "
            f"with no plugin; {count:,} events incl. event creation, best of 3",
        )
    ]


def run(ctx: Context) -> list[Figure]:
    return [*own_format(ctx), *claude_traces(ctx), *recorder_cost(ctx)]
