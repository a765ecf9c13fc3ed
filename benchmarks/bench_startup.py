"""Start-up: ``monologue --help`` and ``monologue plugins`` next to ``python -c pass``.

Both read the plugin index (core/monologue/_plugin_index.py) and import no plugin module; the
first run after an install builds the index by loading every plugin, timed apart.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

from .harness import Context, Figure, median


def _time(args: list[str], repeats: int, env: dict[str, str]) -> float:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True, env=env)
        samples.append(time.perf_counter() - started)
    return median(samples)


def run(ctx: Context) -> list[Figure]:
    repeats = 5 if ctx.quick else 15
    monologue = [sys.executable, "-m", "monologue"]
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "MONOLOGUE_CACHE_DIR": cache}
        cold = _time([*monologue, "--help"], 1, env)  # builds the index
        python = _time([sys.executable, "-c", "pass"], repeats, env)
        help_time = _time([*monologue, "--help"], repeats, env)
        plugins = _time([*monologue, "plugins"], repeats, env)
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
            target=100,
            compare="max",
            note=f"{help_time / python:.1f}x bare python; all plugins installed, none imported",
        ),
        Figure(
            group="start-up",
            name="monologue plugins",
            value=plugins * 1e3,
            unit="ms",
            target=150,
            compare="max",
            note=f"{plugins / python:.1f}x bare python; from the plugin index",
        ),
        Figure(
            group="start-up",
            name="monologue --help, first run after an install",
            value=cold * 1e3,
            unit="ms",
            note="loads every plugin once to build the plugin index",
        ),
    ]
