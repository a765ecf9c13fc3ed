"""What Claude narration costs: input tokens per request and requests per 100 events, with
the coverage they buy (the share of events some narrative covers), for each preset.

Real sessions (``examples/sessions/*`` and, when present, the shared traces of Claude Code
transcripts, stream-json and Anthropic SSE) are read by whichever installed plugin
understands them (the ``load_session`` hook; files nobody reads are skipped) and replayed
through a real session with the default configuration, the buffer policy and the
``anthropic`` narrator, which talks HTTP through the real SDK to the loopback Messages API
server of monologue-anthropic. The replay is paced like a live agent: after each event it
waits until the narrator is idle, so the narrator is always faster than the agent and no
coalescing of turns flatters the request count.

Requests must stay at or under 30 per 100 events, and coverage at 100%, for every preset.
Input tokens are the loopback server's estimate (prompt characters / 4, see
``pytest_monologue.anthropic``), not a tokenizer's count.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from monologue import Session
from monologue.errors import RecordingError
from monologue.events import Event
from monologue.settings import load_config

from .coverage import Coverage
from .defaults import default_plugins
from .harness import ROOT, Context, Figure, percentile

PRESETS = ("default", "terse", "verbose")
TRACE_FOLDERS = ("claude-code-transcript", "claude-stream-json", "anthropic-sse")
# Emitted by the session itself or about narration: never replayed.
_NOT_REPLAYED = frozenset({"narrative", "narration_suppressed", "summary_refresh", "completion"})
TARGET_P95_TOKENS = 2000
TARGET_REQUESTS_PER_100 = 30


@dataclass
class Recorded:
    name: str
    events: list[Event]


@dataclass
class Tally:
    events: int = 0
    input_tokens: list[float] = field(default_factory=list)
    coverage: Coverage = field(default_factory=Coverage)


def session_files(ctx: Context) -> list[Path]:
    files = sorted((ROOT / "examples" / "sessions").glob("*"))
    if ctx.shared_traces is not None:
        for folder in TRACE_FOLDERS:
            files += sorted((ctx.shared_traces / folder).glob("*"))
    return [path for path in files if path.is_file()]


def read_sessions(files: list[Path]) -> tuple[list[Recorded], list[str]]:
    """Every file some installed plugin reads, and what was skipped and why."""
    from monologue.errors import UnknownFormat
    from monologue.recording import open_session

    found: list[Recorded] = []
    skipped: list[str] = []
    for path in files:
        try:  # a recording, or what an installed reader knows
            events, _ = open_session(path)
        except UnknownFormat:
            skipped.append(f"{path.name} (no reader)")
            continue
        try:
            kept = [event for event in events if event.type not in _NOT_REPLAYED]
        except RecordingError as exc:
            skipped.append(f"{path.name} ({exc.problem})")
            continue
        if kept:
            found.append(Recorded(path.name, kept))
    return found, skipped


@contextmanager
def api_key(value: str) -> Iterator[None]:
    """The narrator reads its key from the environment: a dummy one for the loopback."""
    previous = os.environ.get("ANTHROPIC_API_KEY")
    os.environ["ANTHROPIC_API_KEY"] = value
    try:
        yield
    finally:
        if previous is None:
            del os.environ["ANTHROPIC_API_KEY"]
        else:
            os.environ["ANTHROPIC_API_KEY"] = previous


def replay(recorded: list[Recorded], preset: str) -> Tally:
    from pytest_monologue.anthropic import LoopbackAPI

    tally = Tally()
    with (
        LoopbackAPI() as api,
        api_key("loopback-bench-key"),
        default_plugins(only=("buffer", "anthropic")) as manager,
    ):
        config = load_config(
            {"narrator": "anthropic", "preset": preset, "anthropic_base_url": api.base_url},
            models=manager.hooks.settings_models(),
        )
        for session_events in recorded:
            narratives: list[Event] = []
            with Session("replay", pm=manager, config=config) as session:
                session.subscribe(narratives.append)
                for event in session_events.events:
                    session.dispatch(event)
                    session.wait_idle()
                    tally.events += 1
            tally.coverage.add(session_events.events, narratives)
            if session.stats.narrator_failures:
                raise RuntimeError(
                    f"narration failed {session.stats.narrator_failures} time(s) replaying "
                    f"{session_events.name}: the figures would be wrong"
                )
        tally.input_tokens = [float(request.input_tokens) for request in api.requests]
    return tally


def run(ctx: Context) -> list[Figure]:
    recorded, skipped = read_sessions(session_files(ctx))
    if not recorded:
        raise RuntimeError(f"no session could be read (skipped: {', '.join(skipped) or 'none'})")
    names = ", ".join(r.name for r in recorded)
    figures: list[Figure] = []
    for preset in PRESETS[:1] if ctx.quick else PRESETS:
        tally = replay(recorded, preset)
        requests = len(tally.input_tokens)
        is_default = preset == "default"
        note = (
            f"{len(recorded)} sessions, {tally.events} events, {requests} requests; "
            "~4 chars/token estimate"
        )
        figures += [
            Figure(
                group="narration cost",
                name=f"input tokens per request, p50 ({preset})",
                value=percentile(tally.input_tokens, 50),
                unit="tokens",
                note=note,
            ),
            Figure(
                group="narration cost",
                name=f"input tokens per request, p95 ({preset})",
                value=percentile(tally.input_tokens, 95),
                unit="tokens",
                target=TARGET_P95_TOKENS if is_default else None,
                compare="max" if is_default else None,
                note=note,
            ),
            Figure(
                group="narration cost",
                name=f"narration requests per 100 events ({preset})",
                value=100 * requests / max(tally.events, 1),
                unit="requests",
                target=TARGET_REQUESTS_PER_100,
                compare="max",
                note=(f"replayed: {names}" if is_default else note)
                + (f"; skipped: {', '.join(skipped)}" if skipped and is_default else ""),
            ),
            Figure(
                group="narration cost",
                name=f"events covered by a narrative ({preset})",
                value=tally.coverage.percent,
                unit="%",
                target=100,
                compare="min",
                note=f"{tally.coverage.covered} of {tally.coverage.narratable} narratable events",
            ),
        ]
    return figures
