"""Replay throughput, and what recording costs an agent.

1. A recording of 50,000 events (written by the recorder itself, into a temporary folder),
   replayed with narration off through the default plugin set, next to plain ``json.loads``
   of the same lines and to reading alone (``load_session``, no dispatch), in one run.
2. The same for the Claude traces of ../shared, when present (replay against ``json.loads``
   of the same messages).
3. The recorder's cost per event (batch durability): dispatch with the recorder loaded,
   next to dispatch with no plugin at all.
"""

from __future__ import annotations

import json
import tempfile
import time
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


def replay_seconds(path: Path) -> tuple[float, int]:
    from monologue._replay import Driver, replay

    started = time.perf_counter()
    summary = replay(Driver(path, _Silent(), config={"narrator": "none"}))
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


def own_format(ctx: Context) -> list[Figure]:
    count = 10_000 if ctx.quick else 50_000
    with tempfile.TemporaryDirectory() as tmp:
        path = record_session(Path(tmp), count)
        with default_plugins():
            replayed = best_of(3, lambda: replay_seconds(path)[0])
        events = replay_seconds(path)[1]
        loads = best_of(3, lambda: json_loads_seconds([path]))
        reading = best_of(3, lambda: read_seconds(path))
    json_rate = events / loads
    note = f"{events:,} events, best of 3; json.loads {loads / events * 1e6:.1f} µs/line"
    return [
        Figure(
            group="replay",
            name="replay, narration off, default plugin set",
            value=events / replayed,
            unit="events/s",
            target=round(json_rate / 3),
            compare="min",
            note=f"{replayed / events * 1e6:.1f} µs/event, {events / replayed / json_rate:.2f}"
            f" of json.loads (target: 1/3 of it, measured in this run); {note}",
        ),
        Figure(
            group="replay",
            name="reading alone (load_session), no dispatch",
            value=events / reading,
            unit="events/s",
            note=f"{reading / events * 1e6:.1f} µs/event, "
            f"{events / reading / json_rate:.2f} of json.loads",
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
