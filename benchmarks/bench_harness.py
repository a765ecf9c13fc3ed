"""The harness's agent-level replay: examples/harness (parse, then 3 tasks coded and reviewed,
one review rejected and retried: 9 agent runs) replayed through the SDK's own ``query()``,
with the recorded narratives played back by the harness's replay narrator. Replay is paced
(each message waits for its narration turn), so this is what a user waits for.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from .defaults import default_plugins
from .harness import ROOT, Context, Figure, best_of

EXAMPLE = ROOT / "examples" / "harness"
AGENT_RUNS = 9


def _replay_once() -> float:
    from monologue_harness import AgentMode, TaskHarness

    with (
        tempfile.TemporaryDirectory() as tmp,
        default_plugins(only=("claude", "harness", "buffer")),
    ):
        harness = TaskHarness(
            EXAMPLE / "tasks.md",
            mode=AgentMode(kind="replay", store=EXAMPLE / "recordings"),
            checkpoint=Path(tmp) / "checkpoint.json",
        )
        started = time.perf_counter()
        summary = asyncio.run(harness.run())
        elapsed = time.perf_counter() - started
    if summary.counts()["validated"] != 3:
        raise RuntimeError(f"the example replay did not validate its 3 tasks: {summary.report()}")
    return elapsed


def run(ctx: Context) -> list[Figure]:
    elapsed = best_of(1 if ctx.quick else 3, _replay_once)
    return [
        Figure(
            group="harness",
            name="examples/harness replayed, narrated (9 agent runs)",
            value=elapsed,
            unit="s",
            target=5.0,
            compare="max",
        ),
        Figure(group="harness", name="per agent run", value=elapsed / AGENT_RUNS * 1000, unit="ms"),
    ]
