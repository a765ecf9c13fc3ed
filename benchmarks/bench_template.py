"""What the offline template narrator costs per narrative, on real sessions.

The example sessions (and the shared Claude traces, when present) are read by the installed
readers and narrated in batches of four events, straight through the template narrator's
``compose.narrate`` with a fresh scene per session, as replay asks it: the time per
narrative, and the narrator's throughput next to plain ``json.loads`` of the same events
(issue 22: at least a tenth of it, about 10x the 1.1 ms a narrative took before).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from monologue.errors import RecordingError
from monologue.events import Event
from monologue.recording import open_session

from .harness import ROOT, Context, Figure, best_of

BATCH = 4
TRACE_FOLDERS = ("claude-code-transcript", "claude-stream-json")
TARGET_US = 150.0
TARGET_RATIO = 0.1


def _sessions(ctx: Context) -> list[list[Event]]:
    paths = sorted((ROOT / "examples" / "sessions").glob("*.jsonl"))
    if ctx.shared_traces is not None:
        for folder in TRACE_FOLDERS:
            directory = ctx.shared_traces / folder
            if directory.is_dir():
                paths += sorted(directory.iterdir())
    found: list[list[Event]] = []
    for path in paths:
        try:
            events, _ = open_session(Path(path))
            found.append([event for event in events if event.type != "completion"])
        except RecordingError:
            continue  # a file no installed reader reads
    return [events for events in found if events]


def _cold_caches() -> None:
    """Forget what the narrator cached, so that a repeat is timed as a first reading."""
    import sys

    for name, module in list(sys.modules.items()):
        if name.startswith("monologue_template"):
            for value in vars(module).values():
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


def _narrate_all(sessions: list[list[Event]]) -> tuple[float, int]:
    from monologue_template.actions import Memory
    from monologue_template.compose import Scene, narrate

    _cold_caches()
    count = 0
    start = time.perf_counter()
    for events in sessions:
        scene = Scene(agent=events[0].agent, memory=Memory())
        history: list[str] = []
        for at in range(0, len(events), BATCH):
            scene.history = history[-10:]
            history.append(narrate(scene, events[at : at + BATCH], "buffer"))
            count += 1
    return time.perf_counter() - start, count


def run(ctx: Context) -> list[Figure]:
    sessions = _sessions(ctx)
    if not sessions:
        return []
    repeats = 2 if ctx.quick else 5
    _narrate_all(sessions)  # warm caches and imports, as a long replay is
    count = _narrate_all(sessions)[1]
    narrated = best_of(repeats, lambda: _narrate_all(sessions)[0])
    lines = [event.model_dump_json() for events in sessions for event in events]
    loads = best_of(repeats, lambda: _loads(lines))
    events = sum(len(batch) for batch in sessions)
    return [
        Figure(
            group="template",
            name="narrate, per narrative",
            value=round(narrated / count * 1e6, 1),
            unit="µs",
            target=TARGET_US,
            compare="max",
            note=f"{count} narratives of {BATCH} events, {len(sessions)} sessions",
        ),
        Figure(
            group="template",
            name="narrate throughput / json.loads",
            value=round(loads / narrated, 3),
            unit="x",
            target=TARGET_RATIO,
            compare="min",
            note=f"{events} events",
        ),
    ]


def _loads(lines: list[str]) -> float:
    start = time.perf_counter()
    for line in lines:
        json.loads(line)
    return time.perf_counter() - start
