"""What the claim check costs per narrative (monologue-check), on the narration side.

Narratives are produced the way users get them: every session under ``examples/sessions``
and, when present, the shared traces are replayed through the default plugin set with the
template narrator, each narrative kept with the events it covers. The check (evidence from
the covered events, the claims held against it, and the safe text when one is false) is then
timed per narrative. The emitting thread never runs it: see the check plugin's thread test.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from monologue import Session
from monologue.errors import MonologueError
from monologue.events import Event

from .defaults import default_plugins
from .harness import ROOT, Context, Figure, percentile

TARGET_P99_MS = 5.0
TRACE_FOLDERS = ("claude-code-transcript", "claude-stream-json", "swe-agent", "openhands")
READERS = ("claude", "sweagent", "openhands")


def _sources(ctx: Context) -> list[Path]:
    found = sorted((ROOT / "examples" / "sessions").glob("*.jsonl"))
    if ctx.shared_traces is not None and not ctx.quick:
        for folder in TRACE_FOLDERS:
            found += sorted(p for p in (ctx.shared_traces / folder).glob("*") if p.is_file())
    return found


def _narrated(path: Path) -> list[tuple[str, list[Event]]]:
    """Each narrative of ``path``'s replay, with the events it covers."""
    with default_plugins(*READERS) as manager:
        try:
            events, _ = manager.hooks.open_session(path)
        except MonologueError:
            return []
        by_id: dict[str, Event] = {}
        pairs: list[tuple[str, list[Event]]] = []

        def keep(narrative: Event) -> None:
            covered = [by_id[i] for i in narrative.data.get("covers", []) if i in by_id]
            pairs.append((narrative.data["text"], covered))

        with Session("bench", pm=manager, narrator="template") as session:
            session.subscribe(keep)
            for event in events:
                if event.type in ("narrative", "completion"):
                    continue
                by_id[session.dispatch(event).id] = event
                session.wait_idle(30)
    return pairs


def run(ctx: Context) -> list[Figure]:
    from monologue_check.evidence import Evidence, Ledger
    from monologue_check.plain import safe_text
    from monologue_check.verify import check_text

    pairs = [pair for path in _sources(ctx) for pair in _narrated(path)]
    # Each narrative's cost is its median over the rounds: on a shared machine, a round's
    # slowest timings are the scheduler's, not the check's.
    timings: list[list[float]] = [[] for _ in pairs]
    for _ in range(3 if ctx.quick else 20):
        ledger = Ledger()
        for (text, covered), times in zip(pairs, timings, strict=True):
            started = time.perf_counter()
            evidence = Evidence.of(covered, ledger.before_batch(covered))
            _, violations = check_text(text, evidence)
            if violations:
                safe_text(covered)
            times.append((time.perf_counter() - started) * 1000)
    costs = [statistics.median(times) for times in timings]
    note = (
        f"{len(pairs)} narratives of {len(_sources(ctx))} sessions, template narrator; "
        "each narrative's median of its rounds"
    )
    return [
        Figure(group="check", name="claim check per narrative, p50", value=percentile(costs, 50),
               unit="ms", note=note),
        Figure(group="check", name="claim check per narrative, p99", value=percentile(costs, 99),
               unit="ms", target=TARGET_P99_MS, compare="max", note=note),
    ]  # fmt: skip
