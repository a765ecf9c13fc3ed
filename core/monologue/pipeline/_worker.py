"""The per-session narration worker: narrators run here, never on the agent's path.

One daemon thread per session (started at the first narration request) takes turns in
order. A turn takes the session's whole
:class:`~monologue.pipeline._pending.PendingBuffer`, asks the
selected narrator on the narrator pool with a timeout, and either has the session deliver
the narrative, puts the events back (a *wait* answer), or handles a failure. Events that
arrive during a turn are buffered for the next one. Repeated failures back off (1 s, 2 s,
4 s ... up to 30 s) and, after ``MAX_CONSECUTIVE_FAILURES``, narration is switched off for
the rest of the session. The worker reaches the session only through public members.

In an instant replay whose narrator declares its calls quick work in this process
(``narrator_in_place``), the turns other than the final one run on the session's pipeline
thread instead, when the replay calls :meth:`NarrationWorker.turn_in_place` after the event
that asked: the narrator is called there, with no pool and no timeout, and the narrative is
delivered there. That replay waits for each turn before its next event anyway, so the four
thread hand-offs of a turn (pipeline, worker, pool, worker, pipeline) were all it gained.

Once the session closes, every wait ends by the final deadline (``final_wait_s``): a turn
still running then is abandoned, and the final turn's events are dropped with a reason. An
abandoned call goes on in the pool; ``_overdue`` counts the ones that never return and
pauses a narrator that has too many. Expected failures (:class:`NarratorFailure`, timeouts,
connection errors) are one WARNING line saying what happens next; anything else is a bug in
the plugin, reported with its traceback.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from monologue.digest._fold import covered, event_count
from monologue.errors import NarratorFailure
from monologue.events import FOLDED_TYPE

from ._overdue import overdue_calls
from ._pool import narrator_pool

if TYPE_CHECKING:
    from monologue.events import Event
    from monologue.events._narration import Narration
    from monologue.plugins._hooks import Hooks

    from ._pending import PendingBuffer
    from ._session import Session

log = logging.getLogger("monologue.worker")

# When several requests arrive before a turn starts, the strongest reason is kept: the
# core's own reasons rank as below, and a reason a should_speak plugin names (any other
# string) ranks PLUGIN_REASON_PRIORITY, above the buffer's reasons and below idle and final.
REASON_PRIORITY = {"buffer": 0, "max_buffer": 1, "idle": 3, "final": 4}
PLUGIN_REASON_PRIORITY = 2
BACKOFF_AFTER = 3
MAX_BACKOFF_S = 30.0
MAX_CONSECUTIVE_FAILURES = 8
MAX_REST_S = 1.0
"""The longest rest between two turns that ``narration_share`` asks for."""
_UNPACED = frozenset({"final", "idle"})
"""Reasons that never rest: the session ends, or someone waits for word."""
_EXPECTED = (NarratorFailure, TimeoutError, ConnectionError)


class NarrationWorker:
    """Runs one session's narration turns, in order, off the agent's thread."""

    def __init__(
        self, session: Session, buffer: PendingBuffer, hooks: Hooks, narrator: str
    ) -> None:
        self.session = session
        self.hooks = hooks
        self.narrator = narrator
        self.consecutive_failures = 0
        self.failures = 0
        """Narrator calls that raised or timed out in this session."""
        self.disabled = False
        self.in_place = False
        """Turns other than the final one wait for :meth:`turn_in_place` on the pipeline
        thread, not for this worker's thread (set before the first event, or never)."""
        self._buffer = buffer
        # Two conditions on the session's lock: ``_wake`` is what this worker's thread
        # waits on (a request, its narrator's answer, closing), ``_cond`` what others wait on
        # (a turn taken, or over). A turn run in place then wakes only those waiting for it.
        self._cond = threading.Condition(session.lock)
        self._wake = threading.Condition(session.lock)
        self._requested: str | None = None
        self._busy = False
        self._stopping = False
        self._deadline: float | None = None
        self._backoff_until = 0.0
        self._narrator_cpu = 0.0
        self._no_rest = False
        self._thread = threading.Thread(
            target=self._run, name=f"monologue-narrate-{session.id}", daemon=True
        )
        self._thread.start()

    # -- called from the agent's side ---------------------------------------------------

    def request(self, reason: str) -> None:
        """Ask for a turn; cheap, never blocks on the narrator."""
        current = self._requested
        rank = REASON_PRIORITY.get
        if current is not None and rank(reason, PLUGIN_REASON_PRIORITY) <= rank(
            current, PLUGIN_REASON_PRIORITY
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
                if reason != "idle" and self._buffer.below_wait_mark():
                    return
            current = self._requested
            if current is None or _priority(reason) > _priority(current):
                self._requested = reason
            if not self.in_place or reason == "final":
                self._wake.notify()

    def finish(self, deadline: float) -> None:
        """Ask for the final turn and stop taking others; turns end by ``deadline``."""
        with self._cond:
            self._deadline = deadline
            self._stopping = True
            self._wake.notify_all()  # a turn waiting on its narrator now waits until deadline
            self._cond.notify_all()
        self.request("final")

    def wait_taken(self, deadline: float) -> None:
        """Block until a turn asked for while this thread was idle has taken its events
        (or ``deadline``), so that closing does not fold them into the final turn: which of
        the two told them would otherwise depend on how fast this thread woke. A thread
        busy with a turn is not waited for: the request joins the final turn, as before."""
        with self._cond:
            self._no_rest = True  # the agent is done: nothing left to share the GIL with
            self._wake.notify_all()
            while (
                self._requested is not None
                and not self._busy
                and not self._stopping
                and not self.disabled
            ):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                self._cond.wait(remaining)

    @property
    def busy(self) -> bool:
        """Whether a turn is running (read with the session's lock held, to be sure)."""
        return self._busy

    def wait_idle(self, deadline: float) -> bool:
        """Block until no turn is running or requested, or until ``deadline``."""
        if self._requested is None and not self._busy:
            return True  # as true as it would be a lock later; an instant replay asks per event
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
            self._wake.notify_all()
            self._cond.notify_all()

    # -- the pipeline thread, in place ----------------------------------------------------

    def turn_in_place(self) -> None:
        """On the session's pipeline thread, when :attr:`in_place`: run the turn asked for, if
        any, here (the final turn, and any turn once closing began, stay on this worker's
        thread)."""
        if self._requested is None:
            return  # most events ask for none; requests are made on this thread (posted here)
        with self._cond:
            if self._requested is None or self._busy or self._stopping:
                return
            reason, events = self._take()
        self._take_turn(reason, events, in_place=True)

    # -- the worker thread --------------------------------------------------------------

    def _run(self) -> None:
        session = self.session
        share = session.config.narration_share
        rest_factor = 1 / share - 1
        rest_until = 0.0
        while True:
            with self._cond:
                while not self._stopping and (
                    self._requested is None
                    or (self.in_place and self._requested != "final")
                    or (
                        self._requested not in _UNPACED
                        and not self._no_rest
                        and time.monotonic() < rest_until
                    )
                ):
                    self._wake.wait(
                        None
                        if self._requested is None or self.in_place
                        else rest_until - time.monotonic()
                    )
                if self._requested is None:
                    return
                reason, events = self._take()
            cpu_started = time.thread_time()
            self._narrator_cpu = 0.0
            self._take_turn(reason, events, in_place=False)
            # Narration shares the interpreter with the agent: a turn's CPU (this thread's
            # and the narrator's) buys a rest, so that a fast narrator under a flood of
            # events narrates less often, with more in each turn, instead of taking the GIL
            # from the agent all the time. A model call's turn costs little CPU, and so
            # hardly rests.
            used = time.thread_time() - cpu_started + self._narrator_cpu
            rest_until = time.monotonic() + min(used * rest_factor, MAX_REST_S)

    def _take(self) -> tuple[str, list[Event]]:
        """With the lock held and a turn asked for: the turn's reason and events."""
        reason = self._requested
        assert reason is not None
        # Busy before the request is cleared: wait_idle reads the two without the lock, the
        # request first, and must never see neither.
        self._busy = True
        self._requested = None
        events = self._buffer.take(self.session.config.max_buffer_size)
        self._cond.notify_all()  # for wait_taken
        return reason, events

    def _take_turn(self, reason: str, events: list[Event], *, in_place: bool) -> None:
        try:
            self._turn(reason, events, in_place)
        except Exception:  # a bug here must not kill the worker silently
            log.exception("narration turn failed in session %s", self.session.id)
        finally:
            with self._cond:
                self._busy = False
                self._cond.notify_all()

    def _turn(self, reason: str, events: list[Event], in_place: bool) -> None:
        session = self.session
        if not events and reason != "idle":
            return
        if reason == "final" and all(event.type == "completion" for event in events):
            return  # the turn running at the close told the rest: nothing but the ending is left
        config = session.config
        if self.disabled:
            self._keep(events, reason)
            return
        if self._past_final_deadline():
            self._final_missed(events, reason)
            return
        paused = overdue_calls().pause_reason(self.narrator, config.narrator_stuck_limit)
        if paused is not None:
            self._suppress(events, reason, paused)
            return
        history = list(session.history)
        started = time.monotonic()
        call: Callable[[], Narration | None]
        if in_place:
            # No timeout: the narrator declared its calls quick work here (narrator_in_place).
            # Nor rest, so its CPU time is not taken (a system call, twice a turn).
            call = functools.partial(
                self.hooks.narrate, self.narrator, session, list(events), history, reason
            )
        else:
            future = self._on_pool(events, history, reason, started)
            if future is None:
                return
            call = future.result
        try:
            narration = call()
        except Exception as exc:
            self._failed(exc, events, reason)
            return
        latency_ms = (time.monotonic() - started) * 1000
        self.consecutive_failures = 0
        if narration is None or narration.is_wait:
            with self._cond:
                self._buffer.count_wait()
            if narration is not None:
                self._record_wait_usage(narration, events)
            self._keep(events, reason, waited=True)
            return
        with self._cond:
            self._buffer.clear_wait()
        self._deliver(narration, events, reason, latency_ms)

    def _on_pool(
        self, events: list[Event], history: list[str], reason: str, started: float
    ) -> Future[Narration | None] | None:
        """The narrator's call on the pool, once answered; ``None`` when it was abandoned
        (at ``narrate_timeout_s`` or the final deadline), its events then accounted for."""
        session = self.session
        timeout_s = session.config.narrate_timeout_s
        # The narrator's own list: emptied if the call is abandoned, so that a call that
        # never returns does not hold a batch the worker has put back or dropped.
        batch = list(events)
        future = narrator_pool().submit(self._narrate, session, batch, history, reason)
        if self._wait_for(future, started + timeout_s):
            return future
        self._abandon(future, started)
        batch.clear()
        if self._past_final_deadline():
            self._final_missed(events, reason)
        else:
            self._failed(TimeoutError(f"no answer within {timeout_s:.3g} s"), events, reason)
        return None

    def _narrate(
        self, session: Session, batch: list[Event], history: list[str], reason: str
    ) -> Narration | None:
        """The narrator's call, on the pool's thread, its CPU time kept for the rest."""
        started = time.thread_time()
        try:
            return self.hooks.narrate(self.narrator, session, batch, history, reason)
        finally:
            self._narrator_cpu = time.thread_time() - started

    def _past_final_deadline(self) -> bool:
        return self._deadline is not None and time.monotonic() >= self._deadline

    def _wait_for(self, future: Future[Any], timeout_at: float) -> bool:
        """Wait until ``future`` is done, ``timeout_at`` or the final deadline (which
        :meth:`finish` may set meanwhile); whether it is done."""
        future.add_done_callback(self._answered)
        with self._cond:
            while not future.done():
                limit = timeout_at if self._deadline is None else min(timeout_at, self._deadline)
                remaining = limit - time.monotonic()
                if remaining <= 0:
                    return False
                self._wake.wait(remaining)
        return True

    def _answered(self, _: Future[Any]) -> None:
        with self._cond:
            self._wake.notify_all()

    def _abandon(self, future: Future[Any], started: float) -> None:
        """Stop waiting for ``future``: a call still queued is cancelled; a running one is
        written off by the pool (which may start a thread in its place) and counted as
        stuck if it is still running at twice ``narrate_timeout_s``."""
        if future.cancel():
            return
        narrator_pool().abandon(future)
        stuck_at = started + 2 * self.session.config.narrate_timeout_s
        overdue_calls().abandon(self.narrator, future, stuck_at - time.monotonic())

    def _final_missed(self, events: list[Event], reason: str) -> None:
        """The final deadline passed: the final turn's events are dropped with a reason; an
        earlier turn's go back for the final turn to account for."""
        if reason != "final":
            self._keep(events, reason)
            return
        wait = self.session.config.final_wait_s
        self._suppress(
            events, reason, f"the final narration was not ready within final_wait_s ({wait:g} s)"
        )

    def _deliver(
        self, narration: Narration, events: list[Event], reason: str, latency_ms: float
    ) -> None:
        ids, span = covered(events)  # a digest of folded events covers the folded ids
        digest = events[0] if events and events[0].type == FOLDED_TYPE else None
        self.session.deliver(
            text=narration.text.strip(),
            narrator=self.narrator,
            model=narration.model,
            usage=narration.usage,
            reason=reason,
            covers=ids,
            covers_range=span,
            latency_ms=round(latency_ms, 3),
            checked=narration.checked,
            folded=int(digest.data.get("count", 0)) if digest is not None else 0,
        )

    def _record_wait_usage(self, narration: Narration, events: list[Event]) -> None:
        """A *wait* answer that cost tokens: recorded where usage sums find it."""
        assert narration.usage is not None
        self.session.emit(
            "narration_suppressed",
            {
                "reason": f"narrator {self.narrator!r} answered wait; "
                f"{event_count(events)} event(s) kept",
                "narrator": self.narrator,
                "model": narration.model,
                "usage": narration.usage.model_dump(),
            },
        )

    def _keep(self, events: list[Event], reason: str, waited: bool = False) -> None:
        """Put ``events`` back in front of the buffer (nothing is kept after the final turn)."""
        if reason == "final" or not events:
            return
        with self._cond:
            hold_for = self.session.config.min_buffer_size if waited else None
            self._buffer.put_back(events, hold_for=hold_for)

    def _failed(self, exc: BaseException, events: list[Event], reason: str) -> None:
        session = self.session
        self.consecutive_failures += 1
        self.failures += 1
        failures = self.consecutive_failures
        if failures >= MAX_CONSECUTIVE_FAILURES:
            self.disabled = True
            then = f"narration is off for the rest of this session ({failures} failures in a row)"
        elif failures >= BACKOFF_AFTER:
            delay = min(2.0 ** (failures - BACKOFF_AFTER), MAX_BACKOFF_S)
            self._backoff_until = time.monotonic() + delay
            then = f"narration pauses {delay:g} s ({failures} failures in a row)"
        else:
            then = "narration goes on"
        what = self._suppress(
            events,
            reason,
            f"narrator {self.narrator!r} failed ({type(exc).__name__}: {exc})",
            failures=failures,
        )
        if isinstance(exc, _EXPECTED):
            log.warning(
                "plugin %r raised in narrate: %s: %s; %s; %s (session %s)",
                self.narrator,
                type(exc).__name__,
                exc,
                what,
                then,
                session.id,
            )
            log.debug("the narrator's failure, in full", exc_info=exc)
            return
        self.hooks.report(self.narrator, "narrate", exc)
        if self.disabled:
            log.error(
                "narrator %r failed %d times in a row in session %s; "
                "narration is off for the rest of this session",
                self.narrator,
                failures,
                session.id,
            )

    def _suppress(
        self, events: list[Event], reason: str, why: str, failures: int | None = None
    ) -> str:
        """Keep or drop ``events`` (per ``on_narrator_error``; never kept after the final
        turn) and record why they were not narrated; returns what became of them."""
        kept = self.session.config.on_narrator_error == "keep" and reason != "final"
        if kept:
            self._keep(events, reason)
        else:
            with self._cond:
                self._buffer.drop(events)
        what = f"{event_count(events)} event(s) {'kept' if kept else 'not narrated'}"
        data: dict[str, Any] = {"reason": f"{why}; {what}", "narrator": self.narrator}
        if failures is not None:
            data["failures"] = failures
        self.session.emit("narration_suppressed", data)
        return what


def _priority(reason: str) -> int:
    return REASON_PRIORITY.get(reason, PLUGIN_REASON_PRIORITY)
