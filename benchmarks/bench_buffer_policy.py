"""How often the default policy asks for narration: requests per 100 events.

Each recorded session (``examples/sessions/*`` and, when present, every format folder under
the shared traces) is read by whichever installed plugin recognises it
(``load_session``) and replayed through monologue-buffer and the template narrator. After
every event the replay waits for the narration it asked for, as with a live agent whose
narrator is faster than it: no two requests are merged, so the figure is the policy's own
rate. Every narrate call counts, the final one included. Target: at most 30 per 100 events
(narrating each tool call with its result would be 50), for corpora of at least 20 events.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .defaults import default_plugins
from .harness import ROOT, Context, Figure

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

    @property
    def rate(self) -> float:
        return 100 * self.requests / self.events if self.events else 0.0


def replay(path: Path) -> Replay | None:
    """Replay one file; ``None`` when no installed plugin reads it (or it has no events)."""
    from monologue.errors import MonologueError
    from monologue.plugins import get_plugin_manager

    try:
        loaded = get_plugin_manager().hooks.load_session(path)
        events = [e for e in loaded or () if e.type not in NOT_AGENT_EVENTS]
    except (MonologueError, OSError, ValueError):
        return None
    if not events:
        return None
    with default_plugins(only=("buffer", "template")) as manager:
        from monologue.sessions import Session

        session = Session("agent", pm=manager, narrator="template")
        with session:
            for event in events:
                if event.type != "completion":  # closing the session emits its own
                    session.dispatch(event)
                    session.wait_idle()
        stats = session.stats
    return Replay(path.name, len(events), stats.narratives + stats.waits + stats.narrator_failures)


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
    return figures
