"""The idle watchdog: a word for the watcher when no narrative has come for a while.

One daemon thread watches every active session of the process (a thread per session would
cost a stack each for nothing: they all sleep). It sleeps until the earliest session is due,
and asks that session's worker for a narration turn with reason ``idle``. A session fires
once per quiet stretch: after an idle request it waits for new agent activity before it can
fire again, so an agent stuck in one long step hears one "still running" and not a stream
of them. The thread ends when the last watched session ends, and starts again with the next.

Time comes from a :class:`Clock`, so tests move it forward instead of sleeping, then call
:meth:`Watchdog.check` (no thread) or :meth:`Watchdog.wake` (the real thread).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from monologue import Session

log = logging.getLogger("monologue.gate")

POLL_S = 1.0
"""How soon a due session that was quiet since its last idle turn is looked at again."""


class Clock(Protocol):
    """Where the watchdog reads the time: seconds on a monotonic scale."""

    def now(self) -> float: ...


class MonotonicClock:
    """The real clock: ``time.monotonic()``."""

    def now(self) -> float:
        return time.monotonic()


def idle_watchdog_due(last_decision_ts: float, now_ts: float, interval_seconds: float = 15) -> bool:
    """True when ``interval_seconds`` or more have passed since ``last_decision_ts``."""
    if interval_seconds <= 0:
        raise ValueError(f"interval_seconds must be > 0, got {interval_seconds!r}")
    return now_ts - last_decision_ts >= interval_seconds


class Watch:
    """One session under watch."""

    __slots__ = ("activity", "fired", "interval", "quiet_since", "session")

    def __init__(self, session: Session, interval: float, now: float) -> None:
        self.session = session
        self.interval = interval
        self.quiet_since = now
        """When the last narrative was delivered (or the watch began, or the last idle turn)."""
        self.activity = True
        """Agent activity since the last idle request; the session's start counts as some."""
        self.fired = 0


class Watchdog:
    """Asks watched sessions for an idle narration when they have been quiet too long."""

    def __init__(
        self, clock: Clock | None = None, *, threaded: bool = True, poll_s: float = POLL_S
    ) -> None:
        self.clock: Clock = clock or MonotonicClock()
        self.poll_s = poll_s
        self._threaded = threaded
        self._watches: set[Watch] = set()
        self._cond = threading.Condition()
        self._poked = False
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        """Whether the watchdog thread is alive (it ends with the last watched session)."""
        with self._cond:
            return self._thread is not None

    @property
    def watched(self) -> int:
        with self._cond:
            return len(self._watches)

    def watch(self, session: Session, interval: float) -> Watch:
        """Start watching ``session``: idle turns after ``interval`` seconds without narration."""
        watch = Watch(session, interval, self.clock.now())
        with self._cond:
            self._watches.add(watch)
            if self._threaded and self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="monologue-gate-watchdog", daemon=True
                )
                self._thread.start()
            self._poke()
        return watch

    def unwatch(self, watch: Watch) -> None:
        with self._cond:
            self._watches.discard(watch)
            self._poke()

    def narrated(self, watch: Watch) -> None:
        """A narrative was delivered: the quiet stretch starts again from now."""
        watch.quiet_since = self.clock.now()

    def wake(self) -> None:
        """Make the thread look at the clock now (tests call it after moving a fake clock)."""
        with self._cond:
            self._poke()

    def _poke(self) -> None:
        self._poked = True
        self._cond.notify_all()

    def check(self) -> float | None:
        """Fire every due session; return the seconds until the next check (``None``: idle)."""
        now = self.clock.now()
        due: list[Watch] = []
        next_in: float | None = None
        with self._cond:
            for watch in list(self._watches):
                if not watch.session.active:
                    self._watches.discard(watch)
                    continue
                if not idle_watchdog_due(watch.quiet_since, now, watch.interval):
                    wait = watch.quiet_since + watch.interval - now
                elif watch.activity:
                    watch.activity = False
                    watch.fired += 1
                    watch.quiet_since = now
                    due.append(watch)
                    wait = watch.interval
                else:
                    wait = min(self.poll_s, watch.interval)
                next_in = wait if next_in is None else min(next_in, wait)
        for watch in due:
            # Outside our lock: the session takes its own.
            try:
                watch.session.request_narration("idle")
            except Exception:  # one broken session must not stop the watch over the others
                log.exception("idle request failed for session %s", watch.session.id)
        return next_in

    def _run(self) -> None:
        while True:
            next_in = self.check()
            with self._cond:
                if self._poked:
                    self._poked = False
                    continue
                if not self._watches:
                    self._thread = None
                    return
                self._cond.wait(self.poll_s if next_in is None else next_in)
                self._poked = False


_shared: Watchdog | None = None
_shared_lock = threading.Lock()


def shared_watchdog() -> Watchdog:
    """The process's watchdog (created on first use, on the real clock)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Watchdog()
        return _shared


@contextmanager
def use_watchdog(watchdog: Watchdog) -> Iterator[Watchdog]:
    """Make ``watchdog`` the shared one inside the block (tests inject a fake clock this way)."""
    global _shared
    with _shared_lock:
        previous, _shared = _shared, watchdog
    try:
        yield watchdog
    finally:
        with _shared_lock:
            _shared = previous
