"""Resident memory growth over 100,000 events with a narrator that always waits.

Runs in a fresh subprocess so nothing else this suite allocated is counted.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from .harness import ROOT, Context, Figure

SCRIPT = textwrap.dedent(
    """
    import json, sys, tempfile
    from pathlib import Path
    from monologue import hookimpl
    from monologue.sessions import Session
    from benchmarks.defaults import agent_events, default_plugins, scratch_config

    def rss_kb():
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])

    class AlwaysWait:
        @hookimpl
        def narrate(self):
            return "..."

    count = int(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp, default_plugins() as manager:
        manager.register(AlwaysWait(), "waits")
        with Session("bench", pm=manager, narrator="waits", **scratch_config(Path(tmp))) as s:
            agent_events(s, 2_000)  # warm up: imports, caches, the worker thread
            s.wait_idle(10)
            before = rss_kb()
            agent_events(s, count)
            s.wait_idle(10)
            after = rss_kb()
            pending = len(s.pending)
            dropped = s.stats.dropped
    result = {"before_kb": before, "after_kb": after, "pending": pending, "dropped": dropped}
    print(json.dumps(result))
    """
)


def run(ctx: Context) -> list[Figure]:
    count = 20_000 if ctx.quick else 100_000
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(count)],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    growth_mb = (result["after_kb"] - result["before_kb"]) / 1024
    return [
        Figure(
            group="memory",
            name=f"RSS growth over {count:,} events, narrator always waits",
            value=growth_mb,
            unit="MB",
            target=50,
            compare="max",
            note=f"buffer held {result['pending']} events at the end, {result['dropped']:,} "
            "dropped by the cap (all recorded)",
        ),
    ]
