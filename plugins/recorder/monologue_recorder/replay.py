"""Replaying a session: read it with whichever reader knows its format, re-dispatch its events.

The events go, in order, into a fresh :class:`~monologue.sessions.Session` marked
``meta={"replay_of": path}`` (so the recorder does not record it again unless ``record`` is
true). By default the narrator in effect narrates them anew; with ``recorded=True`` no
narrator runs and the narratives found in the file are shown as they were.

Pacing: ``speed=0`` replays instantly, yet waits for each narration turn to finish before
the next event, as if the agent were slower than its narrator: narration never falls behind
and nothing is dropped, whatever the narrator's latency. ``speed=1`` follows the recorded
timestamps, ``speed=N`` goes N times faster, and a gap never lasts more than ``max_gap_s``
of wall time.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, cast

from pydantic import BaseModel

from monologue.errors import RecordingError

if TYPE_CHECKING:
    from monologue.events import Event
    from monologue.hooks import Hooks
    from monologue.sessions import Session

MAX_GAP_S: Final = 2.0
"""Longest wall-clock pause between two events of a paced replay."""

NARRATION_TYPES: Final = frozenset({"narrative", "narration_suppressed", "summary_refresh"})
"""What a narrator and its gate produced: replayed as recorded, or produced anew."""


class RecordedFailure(Exception):
    """Stands for the failure a recorded session ended with, when its replay ends."""


class ReplaySummary(BaseModel):
    """The last line of ``monologue replay --json``: what the file held and what was said."""

    kind: Literal["summary"] = "summary"
    path: str
    format: str | None = None
    """The plugin whose reader understood the file."""
    events: int = 0
    """Events read from the file."""
    tool_calls: int = 0
    tool_results: int = 0
    tool_errors: int = 0
    errors: int = 0
    """``error`` events in the file."""
    narratives: int = 0
    """Narratives shown: regenerated, or recorded ones with ``--recorded``."""
    narrator: str | None = None
    narrator_failures: int = 0
    duration_s: float = 0.0
    problem: str | None = None
    """Why reading stopped early (file, line, problem), else ``None``."""


class ReplayView(Protocol):
    """Where a replay shows what happens; narratives arrive from the narration thread."""

    def event(self, event: Event) -> None: ...

    def narrative(self, narrative: Event, at: datetime) -> None: ...


def open_session(path: Path, hooks: Hooks) -> tuple[Iterable[Event], str]:
    """The events of ``path`` from the first reader that recognises it, and its plugin name."""
    for impl in hooks.impls("load_session"):
        try:
            answer = impl.function(*[{"path": path}[name] for name in impl.argnames])
        except RecordingError:
            raise
        except Exception as exc:
            hooks.report(impl.plugin_name, "load_session", exc)
            continue
        if answer is not None:
            return cast("Iterable[Event]", answer), impl.plugin_name
    raise RecordingError(
        path, None, f"unknown format: no installed reader recognises it ({known_formats(hooks)})"
    )


def known_formats(hooks: Hooks) -> str:
    """The readers installed, each with the first line of its ``load_session`` docstring."""
    readers = []
    for impl in hooks.impls("load_session"):
        doc = (impl.function.__doc__ or "").strip().splitlines()
        readers.append(f"{impl.plugin_name}: {doc[0]}" if doc else impl.plugin_name)
    if not readers:
        return "no reader plugin is installed"
    return "readers installed: " + "; ".join(readers)


@dataclass
class Tally:
    """What a replay counts as it goes (plain attributes: they change on every event)."""

    types: Counter[str] = field(default_factory=Counter)
    tool_errors: int = 0
    narratives: int = 0

    def count(self, event: Event) -> None:
        self.types[event.type] += 1
        if event.type == "tool_result" and event.data.get("is_error"):
            self.tool_errors += 1

    def summary_fields(self) -> dict[str, int]:
        types = self.types
        return {
            "events": types.total(),
            "tool_calls": types["tool_call"],
            "tool_results": types["tool_result"],
            "tool_errors": self.tool_errors,
            "errors": types["error"],
            "narratives": self.narratives,
        }


@dataclass
class Driver:
    """Feeds events into a fresh session as a live agent would, showing and counting them.

    The session starts with the first event. Recorded narration is shown as it was
    (``recorded``) or left out for the narrator in effect to narrate anew. A completion is
    held back: the last one ends the session (``Session.close``) rather than being followed
    by the completion that closing adds.
    """

    path: Path
    view: ReplayView
    speed: float = 0.0
    recorded: bool = False
    config: dict[str, Any] = field(default_factory=dict)
    """Session settings (the narrator, the preset, plugin settings...)."""
    max_gap_s: float = MAX_GAP_S
    sleep: Callable[[float], None] = time.sleep
    tally: Tally = field(default_factory=Tally, init=False)
    session: Session | None = field(default=None, init=False)
    held: Event | None = field(default=None, init=False)
    """A completion not yet dispatched."""
    _last_ts: datetime | None = field(default=None, init=False)
    """The time of the last agent event: when the narratives that follow it are shown."""
    _clock: datetime | None = field(default=None, init=False)
    """The session's time a paced replay has reached."""
    _wait_turns: bool = field(default=False, init=False)
    """Wait for each narration turn before the next event (instant replays)."""

    def __post_init__(self) -> None:
        if self.speed < 0:
            raise ValueError(f"speed must be 0 (instant) or more, not {self.speed}")

    def feed(self, event: Event, agent: str | None = None) -> None:
        """One event of the source; ``agent`` names the session when the first arrives."""
        session = self.session
        if session is None:
            session = self.session = self._start(event, agent or event.agent or "agent")
        self.tally.count(event)
        if self.held is not None:
            held, self.held = self.held, None
            self._dispatch(session, held)
        if event.type == "completion":
            self.held = event
        else:
            self._dispatch(session, event)

    def close(self) -> None:
        """End the session (final narration included), with the held completion's result."""
        session, held = self.session, self.held
        if session is None:
            return
        result: Any = None
        failure: RecordedFailure | None = None
        if held is not None:
            shown = held if held.agent else held.model_copy(update={"agent": session.agent})
            self.view.event(shown)
            self._last_ts = held.ts
            result = held.data.get("result")
            if held.data.get("is_error"):
                failure = RecordedFailure(str(result or "the recorded run failed"))
        session.close(result=result, error=failure)

    def summary(self, **fields: Any) -> ReplaySummary:
        session = self.session
        return ReplaySummary(
            path=str(self.path),
            narrator=session.narrator if session else None,
            narrator_failures=session.stats.narrator_failures if session else 0,
            **self.tally.summary_fields(),
            **fields,
        )

    def _start(self, first: Event, agent: str) -> Session:
        from monologue.config import load_config
        from monologue.sessions import Session

        from .recording import record_setting

        settings = {**self.config, **({"narrator": "none"} if self.recorded else {})}
        config = load_config(settings)
        # A replay is the recorded session seen again and keeps its id (its events need no
        # rebinding copy), unless it is recorded itself: its file must not be the original's.
        session_id = None if record_setting(config) else first.session_id or None
        session = Session(
            agent, session_id=session_id, meta={"replay_of": str(self.path)}, config=config
        )
        session.subscribe(self._narrated)
        session.start()
        self._wait_turns = session.narrator is not None and not self.speed
        return session

    def _dispatch(self, session: Session, event: Event) -> None:
        narration = event.type in NARRATION_TYPES
        if narration and not self.recorded:
            return
        if self.speed:
            self._pace(event.ts)
        if narration:
            event = session.dispatch(event)
            if event.type == "narrative":
                self.tally.narratives += 1
                self.view.narrative(event, event.ts)
            else:
                self.view.event(event)
            return
        self._last_ts = event.ts
        # Shown as dispatched: the main agent's events get the session's agent name.
        self.view.event(session.dispatch(event))
        if self._wait_turns:
            session.wait_idle()

    def _pace(self, ts: datetime) -> None:
        """Sleep for the recorded gap before ``ts``, scaled and capped."""
        if self._clock is not None:
            gap = (ts - self._clock).total_seconds() / self.speed
            if gap > 0:
                self.sleep(min(gap, self.max_gap_s))
        # Narratives are written when delivered, a little out of order: time never goes back.
        self._clock = ts if self._clock is None else max(ts, self._clock)

    def _narrated(self, narrative: Event) -> None:
        self.tally.narratives += 1
        self.view.narrative(narrative, self._last_ts or narrative.ts)


def replay(driver: Driver) -> ReplaySummary:
    """Replay the file at ``driver.path`` through ``driver``. Bad input ends the replay early
    with the problem in the summary, never with an exception; a narrator that cannot run
    raises :class:`~monologue.errors.NarratorUnavailable` before anything is shown."""
    from monologue.plugins import get_plugin_manager

    path = driver.path
    started = time.perf_counter()
    reader: str | None = None
    problem: str | None = None
    try:
        source, reader = open_session(path, get_plugin_manager().hooks)
        agent = getattr(source, "agent", None)
        for event in source:
            driver.feed(event, agent)
    except RecordingError as exc:
        problem = str(exc)
    finally:
        driver.close()
    duration = round(time.perf_counter() - started, 6)
    return driver.summary(format=reader, problem=problem, duration_s=duration)
