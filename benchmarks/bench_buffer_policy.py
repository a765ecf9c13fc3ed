"""How often the default policy asks for narration: requests per 100 events.

Each recorded session (``examples/sessions/*`` and, when present, every format folder under
the shared traces) is read by whichever installed plugin recognises it
(``load_session``) and replayed through monologue-buffer and the template narrator. After
every event the replay waits for the narration it asked for, as with a live agent whose
narrator is faster than it: no two requests are merged, so the figure is the policy's own
rate. Every narrate call counts, the final one included. Target: at most 30 per 100 events
(narrating each tool call with its result would be 50), for corpora of at least 20 events,
and every narratable event covered by some narrative (coverage 100%).

The same files are also replayed unpaced, all at once, to a template narrator that takes
50 ms per call and a small buffer (``buffer_cap`` 20): the narrator falls behind, the buffer
folds its oldest events into digests, and coverage must stay 100% all the same.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from monologue import hookimpl

from .coverage import Coverage
from .defaults import default_plugins
from .harness import ROOT, Context, Figure

if TYPE_CHECKING:
    from monologue import Session
    from monologue.events import Event

TARGET = 30.0
MIN_EVENTS = 20
"""Below this many events a corpus's rate is set by the introduction and the final narration
(two requests for a four-event file is 50 per 100), not by the policy: shown, not judged."""
# Outputs of an earlier narration in a recording, not things the agent did.
NOT_AGENT_EVENTS = frozenset({"narrative", "narration_suppressed", "summary_refresh"})


@dataclass
class Replay:
    name: str
    events: int
    requests: int
    coverage: Coverage
    folded: int = 0

    @property
    def rate(self) -> float:
        return 100 * self.requests / self.events if self.events else 0.0


SLOW_NARRATOR_S = 0.05
UNPACED = {"narrator": "slow", "buffer_cap": 20, "max_buffer_size": 10}


class SlowTemplate:
    """The template narrator behind a 50 ms delay: slower than an unpaced replay."""

    @hookimpl
    def narrate(
        self, session: Session, events: list[Event], history: list[str], reason: str
    ) -> str:
        import monologue_template

        time.sleep(SLOW_NARRATOR_S)
        return monologue_template.narrate(session, events, history, reason)


def replay(path: Path, unpaced: bool = False) -> Replay | None:
    """Replay one file; ``None`` when no installed plugin reads it (or it has no events).
    ``unpaced``: every event at once, to the slow narrator (see the module's docstring)."""
    from monologue.errors import MonologueError
    from monologue.recording import open_session

    try:
        loaded, _ = open_session(path)  # a recording, or what an installed reader knows
        events = [e for e in loaded if e.type not in NOT_AGENT_EVENTS]
    except (MonologueError, OSError, ValueError):
        return None
    if not events:
        return None
    replayed = [event for event in events if event.type != "completion"]
    narratives: list[Event] = []
    with default_plugins(only=("buffer", "template")) as manager:
        from monologue import Session

        settings: dict[str, Any] = {"narrator": "template"}
        if unpaced:
            manager.register(SlowTemplate(), "slow")
            settings = UNPACED
        session = Session("agent", pm=manager, **settings)
        with session:
            session.subscribe(narratives.append)
            for event in replayed:  # closing the session emits its own completion
                session.dispatch(event)
                if not unpaced:
                    session.wait_idle()
        stats = session.stats
    coverage = Coverage()
    coverage.add(replayed, narratives)
    requests = stats.narratives + stats.waits + stats.narrator_failures
    return Replay(path.name, len(events), requests, coverage, stats.folded)


def corpora(ctx: Context) -> dict[str, list[Path]]:
    found = {"examples/sessions": sorted((ROOT / "examples" / "sessions").glob("*"))}
    if ctx.shared_traces is not None:
        for folder in sorted(p for p in ctx.shared_traces.iterdir() if p.is_dir()):
            found[f"shared traces: {folder.name}"] = sorted(folder.glob("*"))
    return found


def run(ctx: Context) -> list[Figure]:
    figures = []
    for corpus, paths in corpora(ctx).items():
        replays = [r for r in map(replay, paths) if r is not None]
        if not replays:
            continue
        events = sum(r.events for r in replays)
        requests = sum(r.requests for r in replays)
        worst = max(replays, key=lambda r: r.rate)
        coverage = Coverage(
            sum(r.coverage.covered for r in replays), sum(r.coverage.narratable for r in replays)
        )
        figures.append(
            Figure(
                group="buffer policy",
                name=f"narration requests per 100 events, {corpus}",
                value=100 * requests / events,
                unit="/100 events",
                target=TARGET if events >= MIN_EVENTS else None,
                compare="max" if events >= MIN_EVENTS else None,
                note=f"{len(replays)} file(s), {events} events, {requests} requests; highest "
                f"{worst.rate:.0f} in {worst.name} ({worst.events} events)",
            )
        )
        figures.append(
            Figure(
                group="buffer policy",
                name=f"events covered by a narrative, {corpus}",
                value=coverage.percent,
                unit="%",
                target=100,
                compare="min",
                note=f"{coverage.covered} of {coverage.narratable} narratable events",
            )
        )
    figures.append(unpaced_figure(ctx))
    return figures


def unpaced_figure(ctx: Context) -> Figure:
    replays = [
        r
        for paths in corpora(ctx).values()
        for r in (replay(path, unpaced=True) for path in paths)
        if r is not None
    ]
    coverage = Coverage(
        sum(r.coverage.covered for r in replays), sum(r.coverage.narratable for r in replays)
    )
    events = sum(r.events for r in replays)
    requests = sum(r.requests for r in replays)
    return Figure(
        group="buffer policy",
        name="events covered, unpaced replay to a 50 ms narrator, buffer_cap 20",
        value=coverage.percent,
        unit="%",
        target=100,
        compare="min",
        note=f"{len(replays)} file(s), {coverage.covered} of {coverage.narratable} narratable "
        f"events; {sum(r.folded for r in replays)} folded into digests; "
        f"{100 * requests / max(events, 1):.1f} requests per 100 events",
    )
