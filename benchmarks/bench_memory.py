"""Resident memory growth over 100,000 events with a narrator that waits until the end.

The narrator answers *wait* to every turn but the final one, so the pending buffer stays
at its cap and everything older is folded into one bounded digest; the final narrative
covers it all. Reported: the growth, and the share of events that final narrative covers.
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
    from monologue import Session
    from monologue.events import FOLDED_TYPE
    from benchmarks.defaults import agent_events, default_plugins, scratch_config

    def rss_kb():
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])

    class WaitsUntilTheEnd:
        covered = 0

        @hookimpl
        def narrate(self, events, reason):
            if reason != "final":
                return "..."
            self.covered = sum(
                e.data["count"] if e.type == FOLDED_TYPE else 1 for e in events
            )
            return "Done."

    count = int(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp, default_plugins() as manager:
        narrator = WaitsUntilTheEnd()
        manager.register(narrator, "waits")
        with Session("bench", pm=manager, narrator="waits", **scratch_config(Path(tmp))) as s:
            agent_events(s, 2_000)  # warm up: imports, caches, the worker thread
            s.wait_idle(10)
            before = rss_kb()
            agent_events(s, count)
            s.wait_idle(10)
            after = rss_kb()
            pending = len(s.pending)
        stats = s.stats
    result = {
        "before_kb": before,
        "after_kb": after,
        "pending": pending,
        "folded": stats.folded,
        "dropped": stats.dropped,
        "narratives": stats.narratives,
        "covered": narrator.covered,
        # Every dispatched event but the final narrative itself was for narration.
        "narratable": stats.events - stats.narratives,
    }
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
    coverage = 100 * result["covered"] / max(result["narratable"], 1)
    return [
        Figure(
            group="memory",
            name=f"RSS growth over {count:,} events, narrator waits until the end",
            value=growth_mb,
            unit="MB",
            target=50,
            compare="max",
            note=f"buffer held {result['pending']} events at the end, {result['folded']:,} "
            f"folded into the digest, {result['dropped']:,} dropped",
        ),
        Figure(
            group="memory",
            name=f"events covered over {count:,} events, narrator waits until the end",
            value=coverage,
            unit="%",
            target=100,
            compare="min",
            note=f"{result['covered']:,} of {result['narratable']:,} events covered by "
            f"{result['narratives']} narrative(s)",
        ),
    ]
