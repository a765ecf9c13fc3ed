"""Robustness costs: what a decorated call pays when the Messages API hangs, and what the
first call of a process pays next to a later one.

Both with the ``anthropic`` narrator talking HTTP through the real SDK to the loopback
Messages API server of monologue-anthropic. A hanging API costs a call at most
``final_wait_s`` (the call returns; the final narrative is dropped with a reason). The
first-call figures come from a fresh process, where the SDK is not imported yet: its import
starts in the background when the session starts, so the first call pays only what is left
of it when the final narrative is asked for, bounded by ``final_wait_s`` too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from monologue.settings import MonologueConfig

from .harness import Context, Figure, median

_CHILD = """
import json, sys, time
from monologue import emit, monologue

@monologue("bench")
def agent(i):
    call = emit.tool_call("Read", {"file_path": f"src/module_{i}.py"})
    emit.tool_result(call.data["tool_use_id"], "def f(): ...")
    return i

timings = []
for i in range(int(sys.argv[1])):
    started = time.perf_counter()
    agent(i)
    timings.append(time.perf_counter() - started)
print(json.dumps(timings))
"""


def _environ(base_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MONOLOGUE_", "ANTHROPIC_"))}
    env.update(
        MONOLOGUE_NO_CONFIG_FILE="1",
        MONOLOGUE_LOAD_PLUGINS="buffer,anthropic",
        MONOLOGUE_NARRATOR="anthropic",
        ANTHROPIC_API_KEY="loopback-bench-key",
        ANTHROPIC_BASE_URL=base_url,
        **extra,
    )
    return env


def _calls(base_url: str, count: int, **settings: str) -> list[float]:
    """Wall times of ``count`` decorated calls in one fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(count)],
        env=_environ(base_url, **settings),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    timings: list[float] = json.loads(done.stdout.splitlines()[-1])
    return timings


def run(ctx: Context) -> list[Figure]:
    # The server builds its answers with the SDK's types: imported here, so that the first
    # call's figure is the client's cost, not the server's.
    import anthropic.types  # noqa: F401
    from pytest_monologue.anthropic import LoopbackAPI, Reply

    final_wait = MonologueConfig().final_wait_s
    repeats = 2 if ctx.quick else 4
    with LoopbackAPI(responder=lambda _: Reply.hang()) as hanging:
        started = time.perf_counter()
        hung = _calls(hanging.base_url, repeats)
        elapsed = time.perf_counter() - started
    with LoopbackAPI() as healthy:
        first, *later = _calls(healthy.base_url, 3)
    return [
        Figure(
            group="robustness",
            name="added time per call, API hanging",
            value=median(hung[1:]) * 1e3,
            unit="ms",
            target=(final_wait + 0.5) * 1e3,
            compare="max",
            note=f"median of {repeats - 1} later calls; final_wait_s default {final_wait:g} s; "
            f"the process took {elapsed:.1f} s",
        ),
        Figure(
            group="robustness",
            name="first decorated call, healthy API",
            value=first * 1e3,
            unit="ms",
            target=final_wait * 1e3,
            compare="max",
            note="fresh process: the SDK's import starts in the background at session start",
        ),
        Figure(
            group="robustness",
            name="later decorated call, healthy API",
            value=median(later) * 1e3,
            unit="ms",
            note="same process, the SDK and its client ready",
        ),
    ]
