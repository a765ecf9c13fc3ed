"""A session's pipeline: the bounded queue the agent's thread appends to, and the one thread
that takes events from it, in order, through redaction, the hooks and the sinks.

The agent's thread only stamps an event and calls :meth:`Pipeline.put`: a lock held for one
``deque.append``, no I/O, no hook. Everything else happens on the pipeline's own thread
(``monologue-pipeline-<session id>``), which takes whatever waits in one go (so the
recorder's writes are naturally grouped) and runs each item in the order it was put.

The queue holds at most :data:`QUEUE_SIZE` items. When the pipeline falls that far behind,
:meth:`~Pipeline.put` waits for room (back-pressure, counted in :attr:`Pipeline.waits`,
which ``session.stats.backpressure`` shows): an event is never dropped. Code that runs on the
pipeline thread itself (a hook emitting an event, a narrator's delivery) never waits: its
items are run at once, in place, as they were when hooks ran on the emitting thread.

Besides events, the queue carries calls (:meth:`Pipeline.call`, :meth:`Pipeline.post`),
which run on the pipeline thread after everything put before them: starting and closing the
session, adapting a fed object. :meth:`Pipeline.drain` waits until everything put so far has
run, within a deadline.

**A burst gets the GIL.** The pipeline thread shares the interpreter lock with the agent.
When it wakes and finds that the agent has put more than one event meanwhile (it is
emitting a burst, between a model call and a tool call), it waits in steps of
:data:`BURST_STEP_S` while the queue keeps growing, for at most :data:`BURST_WAIT_S` or half
the queue, so that its work does not interleave with the agent's emits; it runs the batch
when the agent pauses. A lone event, or anyone waiting (:meth:`~Pipeline.drain`,
:meth:`~Pipeline.call`, closing), is run at once.

**Idle callbacks** (:meth:`Pipeline.when_idle`) run on the pipeline thread each time it
empties its queue: the recorder writes its waiting lines then, not at the end of its
group-commit window.

The interpreter's switch interval is left at its default (5 ms): with 50 agent threads and
busy narrators, lowering it to 1 ms doubled the p99 emit latency (0.12-0.16 ms against
0.26-0.33 ms, ``benchmarks/bench_pipeline.py``), since every forced switch can land inside
an emit; an emit holds the GIL for microseconds and does no I/O, so it seldom gives it up.
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from threading import get_ident
from typing import Any, Final

from monologue.events import Event

__all__ = ["BURST_STEP_S", "BURST_WAIT_S", "QUEUE_SIZE", "Pipeline"]

log = logging.getLogger("monologue.session")

QUEUE_SIZE: Final = 10_000
"""Items a session's queue holds before the emitting thread waits for room (at about
1 KB an event, 10 MB at most)."""

BURST_STEP_S: Final = 0.001
"""How long the pipeline thread waits, at a time, while an agent's burst of events grows."""

BURST_WAIT_S: Final = 0.02
"""The longest the pipeline thread leaves a burst's events waiting before it runs them."""


class _Call:
    """A function to run on the pipeline thread, and its outcome for whoever waits on it."""

    __slots__ = ("awaited", "done", "error", "fn", "result")

    def __init__(self, fn: Callable[[], Any], awaited: bool = False) -> None:
        self.fn = fn
        self.awaited = awaited
        """Whether a caller waits for it and so receives its exception."""
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None


class Pipeline:
    """One session's queue and the thread that runs it."""

    def __init__(
        self,
        name: str,
        handle: Callable[[list[Event]], object],
        handle_one: Callable[[Event], object],
        size: int | None = None,
    ) -> None:
        self._handle = handle
        self._handle_one = handle_one
        self._size = QUEUE_SIZE if size is None else size
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)  # the thread waits for items
        self._room = threading.Condition(self._lock)  # emitters wait for room
        self._progress = threading.Condition(self._lock)  # drain() and call() wait for runs
        self._items: deque[Event | _Call] = deque()
        self._sleeping = False
        self._hurry = False  # someone waits for the queue: no waiting for a burst to end
        self._idle: list[Callable[[], object]] = []
        self._put = 0
        self._ran = 0
        self._stopping = False
        self.waits = 0
        """Times an emitter waited for room in a full queue (back-pressure)."""
        # Hooks run in the context the session was started in, as they did on the agent's
        # thread: a tracer's current span (OpenTelemetry), say, is the agent's.
        context = contextvars.copy_context()
        self._thread = threading.Thread(
            target=context.run, args=(self._run,), name=name, daemon=True
        )
        self._thread.start()
        self._ident = self._thread.ident  # compared on every put: cheaper than the thread

    @property
    def on_thread(self) -> bool:
        """Whether the caller is the pipeline thread."""
        return get_ident() == self._ident

    # -- the emitting side ----------------------------------------------------------------

    def put(self, event: Event) -> bool:
        """Queue ``event`` (waiting for room if the queue is full); ``False`` once the
        pipeline has stopped taking items. On the pipeline thread, it runs at once."""
        if get_ident() == self._ident:
            self._handle_one(event)
            return True
        with self._lock:
            if self._stopping:
                return False
            if len(self._items) >= self._size:
                self._wait_for_room()
                if self._stopping:
                    return False
            self._items.append(event)
            self._put += 1
            if self._sleeping:
                self._sleeping = False
                self._ready.notify()
        return True

    def put_and_wait(self, event: Event, deadline: float) -> bool:
        """:meth:`put`, then wait until ``event`` has run (or ``deadline``)."""
        if not self.put(event):
            return False
        return self.drain(deadline)

    def post(self, fn: Callable[[], Any], *, awaited: bool = False) -> _Call | None:
        """Run ``fn`` on the pipeline thread after everything queued so far (at once on the
        pipeline thread itself); ``None`` once the pipeline has stopped. An exception of a
        call nobody ``awaited`` is logged, never lost."""
        call = _Call(fn, awaited)
        if get_ident() == self._ident:
            self._run_call(call)
            return call
        with self._lock:
            if self._stopping:
                return None
            self._items.append(call)
            self._put += 1
            if self._sleeping:
                self._sleeping = False
                self._ready.notify()
        return call

    def call(self, fn: Callable[[], Any], deadline: float | None = None) -> Any:
        """Run ``fn`` on the pipeline thread and return its result (its exception is
        raised here); :class:`TimeoutError` if it has not run by ``deadline``."""
        call = self.post(fn, awaited=True)
        if call is None:
            raise RuntimeError("the session's pipeline has stopped")
        with self._lock:
            self._hurry_locked()
            while not call.done:
                if not self._wait(self._progress, deadline):
                    raise TimeoutError("the session's pipeline did not run the call in time")
        if call.error is not None:
            raise call.error
        return call.result

    def drain(self, deadline: float | None = None) -> bool:
        """Wait until every item put so far has run; ``False`` at ``deadline``."""
        if get_ident() == self._ident:
            return True
        with self._lock:
            target = self._put
            if self._ran < target:
                self._hurry_locked()
            while self._ran < target:
                if not self._wait(self._progress, deadline):
                    return False
        return True

    def stop(self, last: Callable[[], Any]) -> _Call | None:
        """Run ``last`` after everything queued, then end the thread; nothing is taken after
        this. Returns the call, ``None`` if the pipeline had already stopped."""
        call = self.post(last)
        if call is None:
            return None
        with self._lock:
            self._stopping = True
            self._hurry_locked()
            self._room.notify_all()
        return call

    def when_idle(self, fn: Callable[[], object]) -> None:
        """Run ``fn`` on the pipeline thread whenever it has emptied its queue (before
        :meth:`drain` returns); an exception is logged."""
        with self._lock:
            self._idle.append(fn)

    def _hurry_locked(self) -> None:
        self._hurry = True
        if self._sleeping:
            self._sleeping = False
        self._ready.notify()

    def join(self, deadline: float) -> bool:
        if get_ident() == self._ident:
            return False
        self._thread.join(max(0.0, deadline - time.monotonic()))
        return not self._thread.is_alive()

    def _wait_for_room(self) -> None:
        self.waits += 1
        self._hurry_locked()
        while len(self._items) >= self._size and not self._stopping:
            self._room.wait()

    @staticmethod
    def _wait(cond: threading.Condition, deadline: float | None) -> bool:
        if deadline is None:
            cond.wait()
            return True
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        cond.wait(remaining)
        return True

    # -- the pipeline thread ----------------------------------------------------------------

    def _run(self) -> None:
        handle = self._handle
        while True:
            with self._lock:
                while not self._items:
                    if self._stopping:
                        self._ident = None  # a later thread may be given the same ident
                        return
                    self._sleeping = True
                    self._ready.wait()
                self._let_burst_end()
                batch, self._items = self._items, deque()
                self._hurry = False
                self._room.notify_all()
            # The events between two calls go to the handler together (in order), so that
            # what costs less per batch than per event (redaction's pre-check) is done once.
            events: list[Event] = []
            for item in batch:
                if type(item) is _Call:
                    if events:
                        self._run_events(handle, events)
                        events = []
                    self._run_call(item)
                else:
                    events.append(item)  # type: ignore[arg-type]
            if events:
                self._run_events(handle, events)
            if self._idle and not self._items:
                self._run_idle()
            with self._lock:
                self._ran += len(batch)
                self._progress.notify_all()

    def _let_burst_end(self) -> None:
        """With the lock held and items waiting: while the agent keeps putting events, wait
        (releasing the lock and the GIL) so that its burst is not slowed by this thread."""
        items = self._items
        seen = len(items)
        if seen < 2:
            return
        limit = self._size // 2
        deadline = time.monotonic() + BURST_WAIT_S
        while not (self._hurry or self._stopping) and seen < limit:
            self._ready.wait(BURST_STEP_S)
            now = len(items)
            if now == seen or time.monotonic() >= deadline:
                return
            seen = now

    @staticmethod
    def _run_events(handle: Callable[[list[Event]], object], events: list[Event]) -> None:
        try:
            handle(events)
        except Exception:  # a bug here must not stop the pipeline
            log.exception("the pipeline failed on a batch of %d events", len(events))

    def _run_idle(self) -> None:
        for fn in self._idle:
            try:
                fn()
            except Exception:
                log.exception("the session's pipeline failed running %r when idle", fn)

    def _run_call(self, call: _Call) -> None:
        try:
            call.result = call.fn()
        except BaseException as exc:
            call.error = exc
            if not call.awaited:
                log.exception("the session's pipeline failed running %r", call.fn)
        finally:
            call.done = True
