"""Replaying a session: read it (monologue's own format, or any format an installed reader
plugin knows) and re-dispatch its events.

The events go, in order, into a fresh :class:`~monologue.Session` marked
``meta={"replay_of": path}`` (so a recorder does not record it again unless ``record`` is
true). By default the narrator in effect narrates them anew; with ``recorded=True`` no
narrator runs and the narratives found in the file are shown as they were.

Pacing: ``speed=0`` replays instantly, yet waits for each narration turn to finish before
the next event, as if the agent were slower than its narrator: narration never falls behind
and nothing is dropped, whatever the narrator's latency, and each turn covers the same
events on every run. ``speed=1`` follows the recorded timestamps, ``speed=N`` goes N times
faster, and a gap never lasts more than ``max_gap_s`` of wall time.

An instant replay reads and feeds its events on the session's pipeline thread (an idle
callback, :meth:`Driver._pump`): the pump takes the source's next event and dispatches it
there, at once, in place, the next following unless the last one asked for a narration
turn (which, when the narrator answers ``narrator_in_place``, the pump runs itself, right
there, before it goes on). Each event is read when it is dispatched, none ahead. Waiting
for the pipeline from the reading thread after every event instead cost two thread
hand-offs per event, most of the replay's time; reading ahead into an inbox for the
pipeline thread to take cost the processor's caches and the garbage collector more than
the reading itself (a thousand events waiting: 12 µs an event, against 4.5 µs to read one
and let it go). The calling thread starts the session and then sleeps while the pump
works: it wakes when the source is done, when the pump stops after :data:`PUMP_BATCH`
events, or when the pump has not moved for :data:`STALL_CHECK_S`, to see whether it is
stuck (after a turn on the pool that ended without a narrative, which nothing else would
tell the pump), never at each turn.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

from pydantic import BaseModel, Field

from monologue.checking import CheckTally
from monologue.errors import RecordingError
from monologue.recording import open_session, record_setting, recording_path

from ._cost import NarrationCost

if TYPE_CHECKING:
    from monologue.events import Event
    from monologue.pipeline._session import Session

log = logging.getLogger("monologue.replay")

MAX_GAP_S: Final = 2.0
"""Longest wall-clock pause between two events of a paced replay."""

NARRATION_TYPES: Final = frozenset({"narrative", "narration_suppressed", "summary_refresh"})
"""What a narrator and its gate produced: replayed as recorded, or produced anew."""
_REMEMBERED_TIMES: Final = 4096
"""Recorded times kept by event id (the newest this many, up to twice as many), to date
narratives by the last event they cover."""
PUMP_BATCH: Final = 1000
"""Events the pump dispatches before it lets the pipeline run anything else queued."""
STALL_CHECK_S: Final = 0.002
"""How long the pump may go without dispatching an event before the reading thread, waiting
for it, checks whether it is stuck."""
QUIET_CHECK_S: Final = 0.25
"""The same without a narrator, or with turns in place, whose pump never stalls (it runs
each turn itself, and goes on after one that ended without a narrative): each look takes
the interpreter lock from the pump, which then waits for it (up to the switch interval,
5 ms, and longer on a busy machine), so the reading thread looks seldom."""


def renamed(problem: RecordingError, read: Path, name: Path) -> str:
    """``problem`` naming ``name`` where it names ``read`` (a stream's temporary copy)."""
    if problem.path != read or read == name:
        return str(problem)
    return str(RecordingError(name, problem.line, problem.problem))


class SessionTimes:
    """The recorded time of a session's events, to date what narration says about them.

    A narrative is dated by the last event it covers (listed, or the end of its
    ``covers_range``), in the recorded session's own time; one covering nothing known, and
    a suppression, by the last event before it. Live narratives are delivered later, on the
    wall clock: a replay must not mix the two.
    """

    def __init__(self) -> None:
        self._by_id: dict[str, datetime] = {}
        self.last: datetime | None = None

    def saw(self, event: Event) -> None:
        by_id = self._by_id
        ts = by_id[event.id] = event.ts
        if len(by_id) > 2 * _REMEMBERED_TIMES:
            # The newest kept, the rest let go at once: a plain dict's insert costs less than
            # an OrderedDict's, and deleting its first keys one by one would make each next
            # lookup of the first key scan every slot freed before it.
            newest = itertools.islice(by_id.items(), len(by_id) - _REMEMBERED_TIMES, None)
            self._by_id = dict(newest)
        self.last = ts

    def of(self, narration: Event) -> datetime:
        covers = narration.data.get("covers")
        span = narration.data.get("covers_range")
        # Folded events are older than the listed ones: the range's end comes last.
        newest_first = [
            *(reversed(covers) if isinstance(covers, list) else ()),
            *(span[-1:] if isinstance(span, list) else ()),
        ]
        for event_id in newest_first:
            if isinstance(event_id, str) and event_id in self._by_id:
                return self._by_id[event_id]
        return self.last or narration.ts


_OWN_KEYS: Final = frozenset({"result", "is_error"})
"""What ``Session.close`` writes into a completion itself."""


class RecordedFailure(Exception):
    """Stands for the failure a recorded session ended with, when its replay ends."""


class ReplaySummary(BaseModel):
    """The last line of ``monologue replay --json``: what the file held and what was said."""

    kind: Literal["summary"] = "summary"
    path: str
    format: str | None = None
    """``"monologue"`` for a recording, else the plugin whose reader understood the file."""
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
    narration: NarrationCost = Field(default_factory=NarrationCost)
    """Model requests, tokens and cost of the narration shown."""
    session_id: str | None = None
    recording: str | None = None
    """Where the replay was recorded (``--record``), else ``None``."""
    duration_s: float = 0.0
    skipped_lines: int = 0
    """Bad lines skipped with a warning (see ``--strict``)."""
    problem: str | None = None
    """Why reading stopped early (file, line, problem), else ``None``."""
    checks: CheckTally | None = None
    """With ``--check``: what the claim check made of each narrative."""


class ReplayView(Protocol):
    """Where a replay shows what happens; narratives arrive from the narration thread."""

    def event(self, event: Event) -> None: ...

    def narrative(self, narrative: Event, at: datetime) -> None: ...


@dataclass
class Tally:
    """What a replay counts as it goes (plain attributes: they change on every event)."""

    types: Counter[str] = field(default_factory=Counter)
    tool_errors: int = 0
    narratives: int = 0
    cost: NarrationCost = field(default_factory=NarrationCost)

    def count(self, event: Event) -> None:
        kind = event.type
        types = self.types
        types[kind] = types.get(kind, 0) + 1  # Counter's own += costs a __missing__ check
        if kind == "tool_result" and event.data.get("is_error"):
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
    source_format: str | None = None
    """Who read the source (``monologue``, or a reader plugin's name): kept in the meta."""
    max_gap_s: float = MAX_GAP_S
    sleep: Callable[[float], None] = time.sleep
    tally: Tally = field(default_factory=Tally, init=False)
    session: Session | None = field(default=None, init=False)
    held: Event | None = field(default=None, init=False)
    """A completion not yet dispatched."""
    _times: SessionTimes = field(default_factory=SessionTimes, init=False)
    """The recorded times of agent events: when the narratives about them are shown."""
    _clock: datetime | None = field(default=None, init=False)
    """The session's time a paced replay has reached."""
    checks: CheckTally | None = None
    """Count what the claim check made of each narrative (``--check``)."""
    title: str | None = field(default=None, init=False)
    """The source's own name for the session (a golden recording's scenario), if any."""
    _wait_turns: bool = field(default=False, init=False)
    """Feed the events from the pipeline thread, waiting for each narration turn before the
    next event (instant replays)."""
    _source: Iterator[Event] | None = field(default=None, init=False)
    """The events not yet dispatched (instant replays); ``None`` once done or stopped."""
    _feeding: threading.Lock = field(default_factory=threading.Lock, init=False)
    """Held by whoever takes from the source: the pump, or a kick."""
    _fed: threading.Condition = field(default_factory=threading.Condition, init=False)
    """Notified by the pump when the source is done (or failed), or it paused."""
    _paused: bool = field(default=False, init=False)
    """The pump stopped after :data:`PUMP_BATCH` events, for the calling thread to kick."""
    _kicked_at: float = field(default=0.0, init=False)
    _pumped: int = field(default=0, init=False)
    """Events the pump has dispatched: it moved while the reader waited, so not settled."""
    _heard_at: float | None = field(default=None, init=False)
    """``session.last_narrative_at`` when the last narrative reached the view."""
    _failure: BaseException | None = field(default=None, init=False)
    """What stopped the pump (a view that failed, say), raised on the reading thread."""
    _last_type: str | None = field(default=None, init=False)
    """The type of the last agent event dispatched (did the agent speak last?)."""
    _dated: bool = field(default=True, init=False)
    """Whether narratives will be shown, so the events' times are needed to date them."""
    _in_place: bool = field(default=False, init=False)
    """The pump runs each narration turn itself, right after the event that asked for it
    (an instant replay whose narrator declares its calls quick work in this process)."""

    def __post_init__(self) -> None:
        if self.speed < 0:
            raise ValueError(f"speed must be 0 (instant) or more, not {self.speed}")

    def run(self, events: Iterable[Event], agent: str | None = None) -> None:
        """Dispatch ``events`` in order, and return when they have been (and, instantly,
        narrated); ``agent`` names the session when the first arrives. An instant replay
        reads them on the pipeline thread (:meth:`_pump`); an exception reading them is
        raised here."""
        source = iter(events)
        session = self.session
        if session is None:
            first = next(source, None)
            if first is None:
                return
            session = self.session = self._start(first, agent or first.agent or "agent")
            source = itertools.chain((first,), source)
        self._source = source
        if not self._wait_turns:
            while self._next(session):
                pass
            return
        self._settle(session)

    def feed(self, event: Event, agent: str | None = None) -> None:
        """One event, read elsewhere (a followed file): dispatched, and narrated when
        instant, before this returns."""
        self.run((event,), agent)

    def _next(self, session: Session) -> bool:
        """Read the source's next event, count it and dispatch it: recorded narration only
        when shown as recorded; a completion is held back until an agent event follows it.
        ``False`` when the source is done (or the replay was stopped). Instant replays call
        it with :attr:`_feeding` held."""
        source = self._source
        event = None if source is None else next(source, None)
        if event is None:
            self._source = None
            return False
        self.tally.count(event)
        kind = event.type
        if kind in NARRATION_TYPES:
            # Narration recorded after the completion is about it: the run may still end.
            if self.recorded:
                self._show(session, event)
            return True
        held = self.held
        if held is not None:
            self.held = None
            self._show(session, held)
        if kind == "completion":
            self.held = event
        else:
            self._show(session, event)
        return True

    def close(self, skipped_lines: int = 0, stopped: bool = False) -> None:
        """End the session (final narration included), with the held completion's result.

        The completion says how the run ended (``data["ending"]``): as the recorded one
        says, else ``failed`` or ``completed``. A source without a completion ends
        ``cut_off`` when a tool call has no result or the agent did not speak last, else
        ``completed``; reading ``stopped`` early is ``cut_off`` too. ``skipped_lines``
        counts the bad lines passed over."""
        session, held = self.session, self.held
        if session is None:
            return
        if self._wait_turns:
            try:
                self._settle(session)
            except BaseException:  # the view failed, or Ctrl-C: the session still closes
                self.interrupt()
                session.close(details={"ending": "cut_off", "skipped_lines": skipped_lines})
                raise
        result: Any = None
        failure: RecordedFailure | None = None
        finished = not session.open_tool_calls and self._last_type in ("text", "completion")
        details: dict[str, Any] = {"ending": "cut_off" if stopped or not finished else "completed"}
        if held is not None:
            shown = held if held.agent else held.model_copy(update={"agent": session.agent})
            self.view.event(shown)
            self._times.saw(held)
            result = held.data.get("result")
            if held.data.get("is_error"):
                failure = RecordedFailure(str(result or "the recorded run failed"))
            details = {key: v for key, v in held.data.items() if key not in _OWN_KEYS}
            if stopped:
                details["ending"] = "cut_off"
            else:
                details.setdefault("ending", "failed" if failure else "completed")
        details["skipped_lines"] = skipped_lines
        session.close(result=result, error=failure, details=details)
        self._check_recorded(session)

    def interrupt(self) -> None:
        """Dispatch no more events: a replay stopped by the user (Ctrl-C) closes at once.
        The pump sees it at its next event (no lock: it may hold it for a while)."""
        self._source = None

    def summary(self, **fields: Any) -> ReplaySummary:
        session = self.session
        return ReplaySummary(
            path=str(self.path),
            narrator=session.narrator if session else None,
            narrator_failures=session.stats.narrator_failures if session else 0,
            narration=self.tally.cost,
            session_id=session.id if session else None,
            recording=self._recording(session) if session else None,
            checks=self.checks,
            **self.tally.summary_fields(),
            **fields,
        )

    @staticmethod
    def _recording(session: Session) -> str | None:
        if not record_setting(session.config):
            return None
        path = recording_path(session.config, session.id)
        return str(path) if path.exists() else None

    def _check_recorded(self, session: Session) -> None:
        """Say so when a replay asked to be recorded was not: no recorder plugin wrote it."""
        if record_setting(session.config) and self._recording(session) is None:
            log.warning(
                "record = true, yet this replay was not recorded (no %s): is a recorder "
                "plugin, such as monologue-recorder, installed?",
                recording_path(session.config, session.id),
            )

    def _start(self, first: Event, agent: str) -> Session:
        from monologue.pipeline._session import Session
        from monologue.settings import load_config

        # No agent shares the interpreter with a replay's narration: its turns never rest.
        settings = {
            "narration_share": 1.0,
            **self.config,
            **({"narrator": "none"} if self.recorded else {}),
        }
        config = load_config(settings)
        # A replay is the recorded session seen again and keeps its id (its events need no
        # rebinding copy), unless it is recorded itself: its file must not be the original's.
        session_id = None if record_setting(config) else first.session_id or None
        meta: dict[str, Any] = {"replay_of": str(self.path)}
        if self.title:
            meta["title"] = self.title
        if self.source_format:
            meta["source_format"] = self.source_format
        timed = "ts" in first.model_fields_set
        if not timed:
            # The source records no times (its reader left them to the clock): say so, so
            # that no viewer shows them as the session's timeline.
            meta["untimed"] = True
            if hasattr(self.view, "untimed"):
                setattr(self.view, "untimed", True)  # noqa: B010 (not every view has it)
        session = Session(agent, session_id=session_id, meta=meta, config=config)
        if timed:
            # A recording of the replay starts when the source did, not when it was replayed.
            session.started_at = first.ts
        session.subscribe(self._narrated)
        session.start()
        # Instant replays are fed from the pipeline thread, narrated or not: with no
        # narrator, the pump simply never stops before the source is done.
        self._wait_turns = not self.speed
        self._dated = session.narrator is not None or self.recorded
        if self._wait_turns:
            self._in_place = session.turns_in_place()
            session.when_idle(self._pump)
        return session

    def _show(self, session: Session, event: Event) -> None:
        if self.speed:
            self._pace(event.ts)
        if event.type in NARRATION_TYPES:  # recorded (``recorded``): shown as it was
            event = session.dispatch(event)
            self.tally.cost.add(event)
            if event.type == "narrative":
                self.tally.narratives += 1
                self.view.narrative(event, self._times.of(event))
            else:
                self.view.event(event)
            return
        self._last_type = event.type
        if self._dated:
            self._times.saw(event)
        # Shown as dispatched: the main agent's events get the session's agent name.
        self.view.event(session.dispatch(event))

    def _settle(self, session: Session) -> None:
        """Wait (on the calling thread) until the source has been dispatched and narrated.

        The pump stops at each turn and goes on when the turn's narrative has been through
        the pipeline. Where nothing wakes it (a source just given, a batch done, a turn that
        kept its events, a narrator that timed out), the pipeline is idle and this thread
        dispatches the next event itself (a kick), after which the pump takes over again.
        While the pump moves, this thread sleeps until the source is done; it looks whether
        the pump is stuck only once it has not moved for :data:`STALL_CHECK_S`: waiting
        for the session at each turn would wake it several times a turn."""
        moving = False
        while True:
            if moving:
                self._wait_fed(stalls=session.narrator is not None and not self._in_place)
            pumped = self._pumped
            session.wait_idle()
            if self._failure is not None:
                failure, self._failure = self._failure, None
                raise failure
            if self._pumped != pumped:
                moving = True  # the pump fed events meanwhile: a turn may be pending again
                continue
            if self._source is None:
                return
            with self._feeding:
                self._kicked_at = time.monotonic()
                self._paused = False
                self._next(session)
            moving = True

    def _wait_fed(self, stalls: bool) -> None:
        """Sleep until the pump is done with the source (or failed) or paused, or has
        dispatched nothing for :data:`STALL_CHECK_S` (``stalls``: a turn on the pool may end
        without a narrative, which nothing tells the pump) or :data:`QUIET_CHECK_S`."""
        timeout = STALL_CHECK_S if stalls else QUIET_CHECK_S
        with self._fed:
            pumped = None
            while (
                self._source is not None
                and self._failure is None
                and not self._paused
                and self._pumped != pumped
            ):
                pumped = self._pumped
                self._fed.wait(timeout)

    def _pump(self) -> None:
        """On the pipeline thread, whenever it is idle: read and dispatch events (each runs
        at once, in place) until one asks for a narration turn, for at most
        :data:`PUMP_BATCH` events. With turns in place, the pump runs each turn itself,
        right after the event that asked for it (and first, one asked for while it was
        away: by a kicked event, or a request a hook posted), and goes on."""
        session = self.session
        in_place = self._in_place
        if session is None or (self._source is None and not in_place):
            return
        with self._feeding:
            paused = False
            try:
                if in_place:
                    session.take_turn()
                # A kick still queued behind something else must run first, or order breaks.
                if self._source is not None and (session.last_event_at or 0.0) >= self._kicked_at:
                    paused = self._pump_batch(session)
            except BaseException as exc:
                self._failure = exc
                self._source = None
            if self._source is None or paused:
                with self._fed:
                    self._paused = paused
                    self._fed.notify()

    def _pump_batch(self, session: Session) -> bool:
        """The pump's events, up to :data:`PUMP_BATCH`; whether it stopped there (paused)."""
        in_place = self._in_place
        # With no narrator nothing ever asks for a turn: no need to ask at each event.
        quiet = self._quiet if session.narrator is not None and not in_place else None
        take = self._next
        for _ in range(PUMP_BATCH):
            try:
                if not ((quiet is None or quiet(session)) and take(session)):
                    return False
            finally:
                if in_place:
                    # Even when showing the event failed after its dispatch: a turn it asked
                    # for and left waiting would take the completion of closing too.
                    session.take_turn()
            self._pumped += 1
        return True  # the calling thread kicks it on, after what waits ran

    def _quiet(self, session: Session) -> bool:
        """No narration turn is asked for or running (``wait_idle(0)`` on the pipeline thread
        only asks), and none has finished with its narrative still queued behind the pump:
        a fast narrator can do all that between two of its events."""
        return session.wait_idle(0) and session.last_narrative_at == self._heard_at

    def _pace(self, ts: datetime) -> None:
        """Sleep for the recorded gap before ``ts``, scaled and capped."""
        if self._clock is not None:
            gap = (ts - self._clock).total_seconds() / self.speed
            if gap > 0:
                self.sleep(min(gap, self.max_gap_s))
        # Narratives are written when delivered, a little out of order: time never goes back.
        self._clock = ts if self._clock is None else max(ts, self._clock)

    def _narrated(self, narrative: Event) -> None:
        if self.session is not None:
            self._heard_at = self.session.last_narrative_at
        self.tally.narratives += 1
        if self.checks is not None:
            self.checks.add(narrative.data)
        self.tally.cost.add(narrative)
        self.view.narrative(narrative, self._times.of(narrative))


class ProgressView(Protocol):
    """A view that can show how far a replay has read."""

    def start_progress(self, total: int | None, position: Callable[[], int] | None) -> None: ...


def replay(
    driver: Driver,
    source: Path | None = None,
    *,
    strict: bool = False,
    progress: ProgressView | None = None,
) -> ReplaySummary:
    """Replay the file at ``source`` (``driver.path`` by default; a stream's temporary copy,
    say, named ``driver.path`` in messages) through ``driver``. A bad line of a recording is
    skipped with a warning, or with ``strict`` ends the replay early. Bad input ends it with
    the problem in the summary, never with an exception; a narrator that cannot run raises
    :class:`~monologue.errors.NarratorUnavailable` before anything is shown. ``progress``
    is shown the file's size and how much of it has been read (when the reader can tell)."""
    from monologue.lines import skipping_bad_lines

    path = source or driver.path
    started = time.perf_counter()
    reader: str | None = None
    problem: str | None = None
    events: Any = ()
    with skipping_bad_lines(not strict) as skipped:
        try:
            events, reader = open_session(path, strict=strict, name=str(driver.path))
            driver.source_format = reader
            driver.title = getattr(events, "title", None)
            agent = getattr(events, "agent", None)
            if progress is not None:
                progress.start_progress(path.stat().st_size, getattr(events, "position", None))
            driver.run(events, agent)
        except RecordingError as exc:
            problem = renamed(exc, path, driver.path)
        except BaseException:
            driver.interrupt()
            raise
        finally:
            lines = getattr(events, "skipped", 0) + skipped.count
            driver.close(lines, stopped=problem is not None)
    duration = round(time.perf_counter() - started, 6)
    return driver.summary(format=reader, problem=problem, duration_s=duration, skipped_lines=lines)
