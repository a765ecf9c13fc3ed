"""Start-up: ``monologue --help`` and ``monologue plugins`` next to ``python -c pass``."""

from __future__ import annotations

import subprocess
import sys
import time

from .harness import Context, Figure, median


def _time(args: list[str], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True)
        samples.append(time.perf_counter() - started)
    return median(samples)


def run(ctx: Context) -> list[Figure]:
    repeats = 5 if ctx.quick else 15
    python = _time([sys.executable, "-c", "pass"], repeats)
    help_time = _time([sys.executable, "-m", "monologue", "--help"], repeats)
    plugins = _time([sys.executable, "-m", "monologue", "plugins"], repeats)
    return [
        Figure(
            group="start-up",
            name="python -c pass",
            value=python * 1e3,
            unit="ms",
            note=f"median of {repeats}",
        ),
        Figure(
            group="start-up",
            name="monologue --help",
            value=help_time * 1e3,
            unit="ms",
            target=250,
            compare="max",
            note=f"{help_time / python:.1f}x bare python; all plugins installed",
        ),
        Figure(
            group="start-up",
            name="monologue plugins",
            value=plugins * 1e3,
            unit="ms",
            note=f"{plugins / python:.1f}x bare python",
        ),
    ]
