"""The per-session narration worker: narrators run here, never on the agent's path.

One daemon thread per session (started at the first narration request) takes turns in
order. A turn takes everything in ``session.pending``, asks the selected narrator on the
narrator pool with a timeout, and either delivers the narrative, puts the events back (a
*wait* answer), or handles a failure. Events that arrive during a turn are buffered for the
next one. Repeated failures back off (1 s, 2 s, 4 s ... up to 30 s) and, after
``MAX_CONSECUTIVE_FAILURES``, narration is switched off for the rest of the session.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING

from .pool import narrator_pool

if TYPE_CHECKING:
    from .events import Event
    from .hooks import Hooks
    from .narration import Narration
    from .sessions import Session

log = logging.getLogger("monologue.worker")

# When several requests arrive before a turn starts, the strongest reason is kept.
REASON_PRIORITY = {"buffer": 0, "max_buffer": 1, "gate": 2, "idle": 3, "final": 4}
BACKOFF_AFTER = 3
MAX_BACKOFF_S = 30.0
MAX_CONSECUTIVE_FAILURES = 8


class NarrationWorker:
    """Runs one session's narration turns, in order, off the agent's thread."""

    def __init__(self, session: Session, hooks: Hooks, narrator: str) -> None:
        self.session = session
        self.hooks = hooks
        self.narrator = narrator
        self.consecutive_failures = 0
        self.disabled = False
        self._cond = threading.Condition(session.lock)
        self._requested: str | None = None
        self._busy = False
        self._stopping = False
        self._deadline: float | None = None
        self._backoff_until = 0.0
        # After a *wait* answer, ordinary requests are ignored until the buffer reaches this.
        self._wait_mark = 0
        self._thread = threading.Thread(
            target=self._run, name=f"monologue-narrate-{session.id}", daemon=True
        )
        self._thread.start()

    # -- called from the agent's side ---------------------------------------------------

    def request(self, reason: str) -> None:
        """Ask for a turn; cheap, never blocks on the narrator."""
        current = self._requested
        if current is not None and REASON_PRIORITY.get(reason, 0) <= REASON_PRIORITY.get(
            current, 0
        ):
            # A turn at least as strong is already asked for and will take every pending
            # event (the caller appended its event first); skip the lock on this hot path.
            return
        with self._cond:
            if self.disabled or (self._stopping and reason != "final"):
                return
            if reason != "final":
                if time.monotonic() < self._backoff_until:
                    return
                if reason != "idle" and len(self.session.pending) < self._wait_mark:
                    return
            current = self._requested
            if current is None or REASON_PRIORITY.get(reason, 0) > REASON_PRIORITY.get(current, 0):
                self._requested = reason
            self._cond.notify()

    def finish(self, deadline: float) -> None:
        """Ask for the final turn and stop taking others; turns end by ``deadline``."""
        with self._cond:
            self._deadline = deadline
            self._stopping = True
        self.request("final")

    def wait_idle(self, deadline: float) -> bool:
        """Block until no turn is running or requested, or until ``deadline``."""
        with self._cond:
            while self._requested is not None or self._busy:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
        return True

    def stop(self) -> None:
        with self._cond:
            self._stopping = True
            self._requested = None
            self._cond.notify_all()

    # -- the worker thread --------------------------------------------------------------

    def _run(self) -> None:
        session = self.session
        while True:
            with self._cond:
                while self._requested is None and not self._stopping:
                    self._cond.wait()
                if self._requested is None:
                    return
                reason, self._requested = self._requested, None
                events, session.pending = session.pending, []
                self._busy = True
            try:
                self._turn(reason, events)
            except Exception:  # a bug here must not kill the worker silently
                log.exception("narration turn failed in session %s", session.id)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _turn(self, reason: str, events: list[Event]) -> None:
        session = self.session
        if not events and reason != "idle":
            return
        timeout = session.config.narrate_timeout_s
        if self._deadline is not None:
            timeout = min(timeout, self._deadline - time.monotonic())
        if self.disabled or timeout <= 0:
            self._keep(events, reason)
            return
        history = list(session.history)
        started = time.perf_counter()
        future = narrator_pool().submit(
            self.hooks.narrate, self.narrator, session, events, history, reason
        )
        try:
            narration = future.result(timeout=timeout)
        except FutureTimeout:
            future.cancel()
            self._failed(TimeoutError(f"no answer within {timeout:.3g} s"), events, reason)
            return
        except Exception as exc:
            self._failed(exc, events, reason)
            return
        latency_ms = (time.perf_counter() - started) * 1000
        self.consecutive_failures = 0
        if narration is None:
            session.stats.waits += 1
            self._keep(events, reason, waited=True)
            return
        with self._cond:
            self._wait_mark = 0
        self._deliver(narration, events, reason, latency_ms)

    def _deliver(
        self, narration: Narration, events: list[Event], reason: str, latency_ms: float
    ) -> None:
        self.session.deliver(
            text=narration.text.strip(),
            narrator=self.narrator,
            model=narration.model,
            usage=narration.usage,
            reason=reason,
            covers=[event.id for event in events],
            latency_ms=round(latency_ms, 3),
        )

    def _keep(self, events: list[Event], reason: str, waited: bool = False) -> None:
        """Put ``events`` back in front of the buffer (nothing is kept after the final turn)."""
        if reason == "final" or not events:
            return
        session = self.session
        with self._cond:
            session.pending[:0] = events
            session.enforce_cap()
            if waited:
                self._wait_mark = len(session.pending) + session.config.min_buffer_size

    def _failed(self, exc: BaseException, events: list[Event], reason: str) -> None:
        session = self.session
        self.consecutive_failures += 1
        session.stats.narrator_failures += 1
        self.hooks.report(self.narrator, "narrate", exc)
        failures = self.consecutive_failures
        if failures >= MAX_CONSECUTIVE_FAILURES:
            self.disabled = True
            log.error(
                "narrator %r failed %d times in a row in session %s; "
                "narration is off for the rest of this session",
                self.narrator,
                failures,
                session.id,
            )
        elif failures >= BACKOFF_AFTER:
            delay = min(2.0 ** (failures - BACKOFF_AFTER), MAX_BACKOFF_S)
            self._backoff_until = time.monotonic() + delay
        kept = session.config.on_narrator_error == "keep" and reason != "final"
        if kept:
            self._keep(events, reason)
        else:
            session.stats.dropped += len(events)
        what = f"{len(events)} event(s) {'kept' if kept else 'not narrated'}"
        session.emit(
            "narration_suppressed",
            {
                "reason": f"narrator {self.narrator!r} failed ({type(exc).__name__}: {exc}); "
                f"{what}",
                "narrator": self.narrator,
                "failures": failures,
            },
        )
