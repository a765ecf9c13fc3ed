"""CI's smoke run of the hot-path benchmark: every row of issue 22's table still produces a
figure. Sizes are tiny and no timing is asserted (timings belong to ``python -m
benchmarks``, never to a test)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

ROWS = (
    "bare pluggy broadcast to 4 no-op implementations",
    "events/s on the emitting thread, default plugin set",
    "emit cost ÷ bare pluggy broadcast to 4 no-ops",
    "events/s on the emitting thread, default plugin set, 1 tool call in 8 failing",
    "emit cost ÷ bare pluggy broadcast to 4 no-ops, 1 tool call in 8 failing",
    "events/s on the emitting thread, default plugin set, 250,000 more objects on the heap",
    "events/s, emit + drain at close, default plugin set",
    "added latency per emit, p99, 50 threads, narrator sleeping 200 ms",
    "added latency per emit, p99, 50 threads, narrator sleeping 1 s, 1 tool result in 8 failing",
    "files written per 100k events, 1 tool call in 8 failing",
    "SIGKILL window, durability batch: emitted events not in the recording",
)


def test_every_hot_path_row_produces_a_figure() -> None:
    sys.path.insert(0, str(ROOT))
    from benchmarks import bench_pipeline
    from benchmarks.harness import Context

    figures = {figure.name: figure for figure in bench_pipeline.run(Context(smoke=True))}
    missing = [row for row in ROWS if row not in figures]
    assert not missing, f"rows without a figure: {missing}"
    for row in ROWS:
        assert math.isfinite(figures[row].value), row
        if row != ROWS[-1]:  # losing no event to a SIGKILL is a fine figure
            assert figures[row].value > 0, row
