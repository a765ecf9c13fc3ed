"""Start-up: ``monologue --help`` and ``monologue plugins`` next to ``python -c pass``.

Both read the plugin index (core/monologue/plugins/_index.py) and import no plugin module; the
first run after an install builds the index by loading every plugin (and lets Python cache
the bytecode it compiles, as an installed system has it), timed apart.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time

from .harness import Context, Figure, median


def _time(args: list[str], repeats: int, env: dict[str, str]) -> tuple[float, float]:
    """The median wall time of ``args``, and its median CPU time (user + system): on a
    loaded machine the wall time waits for a core, the CPU time does not."""
    walls, cpus = [], []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True, env=env)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return median(walls), median(cpus)


def run(ctx: Context) -> list[Figure]:
    repeats = 5 if ctx.quick else 15
    monologue = [sys.executable, "-m", "monologue"]
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "MONOLOGUE_CACHE_DIR": cache}
        # As on an installed system, where pip compiles the bytecode at install time and
        # Python caches what it compiles: without the cache (PYTHONDONTWRITEBYTECODE=1 in a
        # sandbox, say) every run compiles click and monologue anew, about 100 ms more.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        cold, _ = _time([*monologue, "--help"], 1, env)  # builds the index, writes bytecode
        python, python_cpu = _time([sys.executable, "-c", "pass"], repeats, env)
        help_time, help_cpu = _time([*monologue, "--help"], repeats, env)
        plugins, plugins_cpu = _time([*monologue, "plugins"], repeats, env)
    return [
        Figure(
            group="start-up",
            name="python -c pass",
            value=python * 1e3,
            unit="ms",
            note=f"median of {repeats}; CPU {python_cpu * 1e3:.0f} ms",
        ),
        Figure(
            group="start-up",
            name="monologue --help",
            value=help_time * 1e3,
            unit="ms",
            target=100,
            compare="max",
            note=f"{help_time / python:.1f}x bare python; CPU {help_cpu * 1e3:.0f} ms; all plugins "
            "installed, none imported",
        ),
        Figure(
            group="start-up",
            name="monologue plugins",
            value=plugins * 1e3,
            unit="ms",
            target=150,
            compare="max",
            note=f"{plugins / python:.1f}x bare python; CPU {plugins_cpu * 1e3:.0f} ms; from the "
            "plugin index",
        ),
        Figure(
            group="start-up",
            name="monologue --help, first run after an install",
            value=cold * 1e3,
            unit="ms",
            note="loads every plugin once to build the plugin index",
        ),
    ]
