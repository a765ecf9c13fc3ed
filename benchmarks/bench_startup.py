"""Start-up: ``monologue --help`` and ``monologue plugins`` next to ``python -c pass``.

Both read the plugin index (core/monologue/plugins/_index.py) and import no plugin module,
and print what they printed last time (core/monologue/cli/_replies.py) without importing
click. The first run after an install builds the index by loading every plugin, renders
the help through click and lets Python cache the bytecode it compiles, as an installed
system has it: timed apart, as are both commands through click (their cached text removed
before each run).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

from .harness import Context, Figure, median, sized


def _time(
    args: list[str], repeats: int, env: dict[str, str], before: Callable[[], None] | None = None
) -> tuple[float, float]:
    """The median wall time of ``args``, and its median CPU time (user + system): on a
    loaded machine the wall time waits for a core, the CPU time does not. ``before`` runs,
    untimed, before each run."""
    walls, cpus = [], []
    for _ in range(repeats):
        if before is not None:
            before()
        before_usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True, env=env)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before_usage.ru_utime + after.ru_stime - before_usage.ru_stime)
    return median(walls), median(cpus)


def _forget_replies(cache: str) -> Callable[[], None]:
    """Remove the cached texts from ``cache``, so that the commands go through click."""

    def forget() -> None:
        for name in os.listdir(cache):
            if name.startswith("replies-"):
                os.remove(os.path.join(cache, name))

    return forget


def run(ctx: Context) -> list[Figure]:
    repeats = sized(ctx, full=15, quick=5, smoke=1)
    monologue = [sys.executable, "-m", "monologue"]
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "MONOLOGUE_CACHE_DIR": cache}
        # As on an installed system, where pip compiles the bytecode at install time and
        # Python caches what it compiles: without the cache (PYTHONDONTWRITEBYTECODE=1 in a
        # sandbox, say) every run compiles click and monologue anew, about 100 ms more.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        # Builds the index, renders and caches the help, writes bytecode.
        cold, _ = _time([*monologue, "--help"], 1, env)
        _time([*monologue, "plugins"], 1, env)  # caches its text
        python, python_cpu = _time([sys.executable, "-c", "pass"], repeats, env)
        help_time, help_cpu = _time([*monologue, "--help"], repeats, env)
        plugins, plugins_cpu = _time([*monologue, "plugins"], repeats, env)
        forget = _forget_replies(cache)
        rendered, rendered_cpu = _time([*monologue, "--help"], repeats, env, forget)
        listed, listed_cpu = _time([*monologue, "plugins"], repeats, env, forget)
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
            "installed, none imported; the text click printed last time",
        ),
        Figure(
            group="start-up",
            name="monologue plugins",
            value=plugins * 1e3,
            unit="ms",
            target=150,
            compare="max",
            note=f"{plugins / python:.1f}x bare python; CPU {plugins_cpu * 1e3:.0f} ms; the text "
            "click printed last time",
        ),
        Figure(
            group="start-up",
            name="monologue --help, through click",
            value=rendered * 1e3,
            unit="ms",
            note=f"CPU {rendered_cpu * 1e3:.0f} ms; its cached text removed before each run (as "
            "after editing monologue), from the plugin index",
        ),
        Figure(
            group="start-up",
            name="monologue plugins, through click",
            value=listed * 1e3,
            unit="ms",
            note=f"CPU {listed_cpu * 1e3:.0f} ms; its cached text removed before each run, from "
            "the plugin index",
        ),
        Figure(
            group="start-up",
            name="monologue --help, first run after an install",
            value=cold * 1e3,
            unit="ms",
            note="loads every plugin once to build the plugin index",
        ),
    ]
