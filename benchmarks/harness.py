"""What every benchmark module shares: the figure model, targets, timing helpers.

A benchmark module is ``benchmarks/bench_<name>.py`` with ``run(ctx: Context) ->
list[Figure]``. Figures that are compared (a ratio, "x next to y") are measured in the same
run, side by side, never against a number from another day.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]
SHARED_TRACES = ROOT.parent / "shared" / "traces"


class Figure(BaseModel):
    """One measured number, with its target when it has one."""

    group: str
    name: str
    value: float
    unit: str
    target: float | None = None
    compare: Literal["min", "max"] | None = None
    """``min``: the value must be at least the target; ``max``: at most."""
    note: str = ""

    @property
    def met(self) -> bool | None:
        if self.target is None or self.compare is None:
            return None
        return self.value >= self.target if self.compare == "min" else self.value <= self.target


@dataclass
class Context:
    """Options every benchmark receives."""

    quick: bool = False
    """Smaller sizes, for a smoke run (``python -m benchmarks --quick``)."""
    smoke: bool = False
    """The smallest sizes that still produce every figure: CI's check that no row rots
    (its figures are never compared with their targets)."""
    shared_traces: Path | None = field(
        default_factory=lambda: SHARED_TRACES if SHARED_TRACES.is_dir() else None
    )


def sized(ctx: Context, full: int, quick: int, smoke: int) -> int:
    """The size a benchmark uses in ``ctx``'s mode."""
    return smoke if ctx.smoke else quick if ctx.quick else full


def best_of(repeats: int, fn: Callable[[], float]) -> float:
    """The smallest of ``repeats`` timings: the least disturbed by a noisy, shared machine."""
    return min(fn() for _ in range(repeats))


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def percentile(values: list[float], pct: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def machine() -> dict[str, str]:
    """A description of where the figures were taken."""
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": str(os.cpu_count()),
    }
