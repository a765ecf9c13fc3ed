"""Sessions: one agent run's events, buffer, history and narration.

``session()`` creates a :class:`Session`, used as a sync or async context manager;
``current()`` is the session of the running scope (a context variable, so asyncio tasks and
threads never share one by accident).

One event's path: ``emit`` (or a helper, or ``feed``) → :meth:`Session.dispatch`, which on
the agent's thread only appends the stamped event to the session's
:class:`~monologue.pipeline._queue.Pipeline`. On the pipeline's thread, in order: redaction
(:func:`~monologue.pipeline._scrub.scrub`), the counters, the
:class:`~monologue.pipeline._pending.PendingBuffer`, the ``on_event`` hooks (the recorder
among them),
``should_speak``, and a request to the session's narration worker (``_worker.py``), which
takes the buffer's batch to the narrator on its own thread → :meth:`Session.deliver` → back on
the pipeline thread, the narrative's ``on_event``, ``on_narrative`` and the subscribers
(``_delivery.py``).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from contextvars import ContextVar, Token
from dataclasses import asdict, dataclass
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, Self

from monologue.checking import log_first_false
from monologue.events import Event, Usage, utcnow
from monologue.events._ids import new_id
from monologue.settings import MonologueConfig, load_config

from . import _shutdown
from ._delivery import Listeners, NarrativeCallback, NarrativeStream
from ._flow import EventFlow
from ._helpers import DICT_OR_NONE, SCALARS, STR_OR_NONE, check, jsonable
from ._pending import PendingBuffer
from ._queue import Pipeline
from ._scrub import scrub_narrative

if TYPE_CHECKING:
    from monologue.plugins._hooks import Hooks
    from monologue.plugins._manager import MonologuePluginManager

    from ._worker import NarrationWorker

log = logging.getLogger("monologue.session")

_current: ContextVar[Session | None] = ContextVar("monologue_session", default=None)

# Past the final narration's deadline, how long close() still waits for the worker to record
# the outcome (a timeout's narration_suppressed event) before on_complete flushes.
_CLOSE_GRACE_S = 0.2


def current() -> Session | None:
    """The session of the running scope, or ``None`` outside any."""
    return _current.get()


__all__ = ["NarrativeCallback", "NarrativeStream", "Session", "SessionStats", "current", "session"]


@dataclass
class _Counts:
    """The counters the session itself owns (the buffer and the worker keep theirs)."""

    events: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    narratives: int = 0
    unadapted: int = 0
    late_events: int = 0
    backpressure: int = 0
    claims_false: int = 0
    """Narratives whose claims a checker found false (retried or replaced before delivery)."""
    unchecked: int = 0


@dataclass
class SessionStats(_Counts):
    """A snapshot of every counter of a session; ``monologue replay --json`` prints them."""

    waits: int = 0
    narrator_failures: int = 0
    dropped: int = 0
    folded: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


class Session(EventFlow):
    """One narrated run of an agent. Create it with :func:`session`."""

    def __init__(
        self,
        agent: str,
        *,
        task_id: str | None = None,
        on_narrative: NarrativeCallback | None = None,
        session_id: str | None = None,
        meta: dict[str, Any] | None = None,
        config: MonologueConfig | None = None,
        pm: MonologuePluginManager | None = None,
        **overrides: Any,
    ) -> None:
        if not isinstance(agent, str) or not agent.strip():
            raise ValueError(f"session agent must be a non-empty string, got {agent!r}")
        self._pm = pm
        self._hooks: Hooks | None = None
        if config is None or overrides:
            # Resolved once, here: every plugin's settings, never per event.
            given = overrides
            if config is not None:
                given = {**config.given(), **config.model_dump(exclude_unset=True), **overrides}
            config = load_config(given, models=self.hooks.settings_models(), tolerant=True)
        self.config = config
        self.agent = agent
        self.task_id = task_id
        self.id = session_id or new_id()
        self.meta: dict[str, Any] = dict(meta or {})
        self.lock = threading.RLock()
        self._pending = PendingBuffer(config.buffer_cap, self._describe)
        self.pending: Sequence[Event] = self._pending
        """The events no narrative covers yet, oldest first; a read-only view (only the
        buffer changes them; a plain attribute, since plugins read it on every event)."""
        self.history: deque[str] = deque(maxlen=config.history_size)
        self.hints: list[str] = []
        """Hints received since the last narrative (the gate reads them)."""
        self.open_tool_calls: dict[str, Event] = {}
        """Tool calls without a result yet, by ``tool_use_id``."""
        self.state: dict[str, Any] = {}
        """Scratch space for plugins, keyed by plugin name."""
        self._counts = _Counts()
        self._unadapted_kinds: set[str] = set()
        self.started_at: datetime | None = None
        self.last_event_at: float | None = None
        self.last_narrative_at: float | None = None
        """``time.monotonic()`` of the last delivered narrative."""
        self.narrator: str | None = None
        self._status: Literal["new", "active", "closing", "closed"] = "new"
        self._worker: NarrationWorker | None = None
        self._pipeline: Pipeline | None = None
        self.sync_writes = False
        """Set by a recorder whose durability is ``always``: each emit then returns only once
        its event has been through the pipeline (so is written). The one case where the
        agent's thread waits for the pipeline; every other emit only enqueues."""
        self._listeners = Listeners(on_narrative, self._report)
        self._tokens: list[Token[Session | None]] = []

    # -- properties ---------------------------------------------------------------------

    @property
    def hooks(self) -> Hooks:
        if self._hooks is None:
            from monologue.plugins._manager import get_plugin_manager

            self._hooks = (self._pm or get_plugin_manager()).hooks
        return self._hooks

    @property
    def stats(self) -> SessionStats:
        """A snapshot of the session's counters (``monologue replay --json`` prints them)."""
        worker = self._worker
        # The counters are plain ints: a shallow copy of their fields, not asdict's deep
        # copy (a tenth of the time; a narrator reads this on every narrative).
        return SessionStats(
            **{**vars(self._counts), "backpressure": self._backpressure()},
            waits=self._pending.waits,
            dropped=self._pending.dropped,
            folded=self._pending.folded,
            narrator_failures=worker.failures if worker is not None else 0,
        )

    @property
    def is_first(self) -> bool:
        """True until the first narrative has been delivered."""
        return self._counts.narratives == 0

    @property
    def active(self) -> bool:
        return self._status in ("active", "closing")

    @property
    def closed(self) -> bool:
        return self._status == "closed"

    def __repr__(self) -> str:
        return f"<Session {self.agent!r} {self.id} {self._status}>"

    def _backpressure(self) -> int:
        pipeline = self._pipeline
        return pipeline.waits if pipeline is not None else 0

    def _describe(self) -> str:
        return f"session {self.id} ({self.agent}), narrator {self.narrator!r}"

    def _report(self, plugin: str, hook: str, exc: BaseException) -> None:
        self.hooks.report(plugin, hook, exc)

    # -- lifecycle ----------------------------------------------------------------------

    def start(self) -> Session:
        """Resolve the narrator (failing now if it cannot run) and fire ``on_session_start``,
        both on the session's pipeline thread, which starts here."""
        if self._status != "new":
            return self
        hooks = self.hooks  # the active plugin manager is the caller's: resolve it here
        pipeline = Pipeline(f"monologue-pipeline-{self.id}", self._run_events, self._run_event)
        try:
            pipeline.call(lambda: self._start_on_pipeline(hooks, pipeline))
        except BaseException:
            pipeline.stop(lambda: None)
            raise
        _shutdown.track(self)
        return self

    def _start_on_pipeline(self, hooks: Hooks, pipeline: Pipeline) -> None:
        hooks.register_event_types()
        self.narrator = hooks.resolve_narrator(self.config)
        self.started_at = self.started_at or utcnow()  # a replay starts when its source did
        self._pipeline = pipeline
        self._status = "active"
        hooks.session_start(self)

    # -- opening and closing ------------------------------------------------------------
    #
    # Closing emits the completion (and the error that ended the scope), waits for the
    # pipeline to run everything queued and for the worker's final turn, both bounded by
    # ``final_wait_s``, then fires ``on_complete`` on the pipeline thread (which ends after
    # it, within another ``final_wait_s``) and ends the subscribers' streams. Live sessions
    # are also closed on SIGTERM (``_shutdown``).

    def __enter__(self) -> Self:
        self.start()
        self._tokens.append(_current.set(self))
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self.close(error=exc)
        finally:
            _current.reset(self._tokens.pop())

    async def __aenter__(self) -> Self:
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            await self.aclose(error=exc)
        finally:
            _current.reset(self._tokens.pop())

    def close(
        self,
        result: Any = None,
        error: BaseException | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        """End the session: completion event, final narration (bounded), ``on_complete``.
        ``details`` are added to the completion's data (a replay's ``ending`` and
        ``skipped_lines``, say)."""
        # One deadline for all of closing (final_wait_s), however its waits are split.
        deadline = time.monotonic() + self.config.final_wait_s
        self._let_turns_start(deadline)
        completion, deadline = self._begin_close(result, error, details, deadline)
        if completion is None:
            return
        try:
            self._wait_for_final(deadline)
        finally:
            self._end_close(completion)

    async def aclose(self, result: Any = None, error: BaseException | None = None) -> None:
        """:meth:`close` for async code: waits for the final narration without blocking."""
        deadline = time.monotonic() + self.config.final_wait_s
        await asyncio.to_thread(self._let_turns_start, deadline)
        completion, deadline = self._begin_close(result, error, None, deadline)
        if completion is None:
            return
        try:
            await asyncio.to_thread(self._wait_for_final, deadline)
        finally:
            await asyncio.to_thread(self._end_close, completion)

    def _let_turns_start(self, deadline: float) -> None:
        """Before closing: let the events emitted so far ask for their turns (the queue
        drained), and a turn asked for take its events. Otherwise it would merge into the
        final turn, which tells the ending instead of what that turn held; an event still
        queued when closing began would join it too, depending on how fast each thread
        woke."""
        if self._pipeline is not None:
            self._pipeline.drain(deadline)
        if self._worker is not None:
            self._worker.wait_taken(deadline)

    def _begin_close(
        self,
        result: Any,
        error: BaseException | None,
        details: Mapping[str, Any] | None,
        deadline: float,
    ) -> tuple[Event | None, float]:
        if self._status == "new":
            self.start()
        with self.lock:
            if self._status != "active":
                return None, 0.0
            self._status = "closing"
        if error is not None:
            self.emit(
                "error",
                {"message": f"{type(error).__name__}: {error}", "error_type": type(error).__name__},
            )
        completion = self.emit(
            "completion",
            {**(details or {}), "result": jsonable(result), "is_error": error is not None},
        )
        # After the completion has been through the pipeline, so the buffer holds it all.
        self._require_pipeline().post(lambda: self._final_turn(deadline))
        return completion, deadline

    def _final_turn(self, deadline: float) -> None:
        with self.lock:
            # A buffer holding nothing but the completion itself has nothing to narrate,
            # unless a turn is running: a wait answer puts its batch back, for this turn.
            running = self._worker is not None and self._worker.busy
            if self._pending.only("completion") and not running:
                self._pending.clear()
            elif self.narrator is not None:
                self._ensure_worker().finish(deadline)

    def _wait_for_final(self, deadline: float) -> None:
        """Wait, within the final deadline, for the queue to drain and the final turn."""
        pipeline = self._require_pipeline()
        if not pipeline.drain(deadline + _CLOSE_GRACE_S):
            log.warning(
                "session %s: events still queued at final_wait_s (%gs); closing anyway",
                self.id,
                self.config.final_wait_s,
            )
            return
        if self._worker is not None:
            self._worker.wait_idle(deadline + _CLOSE_GRACE_S)

    def _end_close(self, completion: Event) -> None:
        _shutdown.untrack(self)
        with self.lock:
            self._status = "closed"
            if self._worker is not None:
                self._worker.stop()
        pipeline = self._require_pipeline()
        # on_complete runs on the pipeline thread, after every narrative delivered so far.
        last = pipeline.stop(lambda: self._complete(completion))
        if last is not None and not pipeline.join(time.monotonic() + self.config.final_wait_s):
            log.warning(
                "session %s: on_complete had not finished within final_wait_s (%gs)",
                self.id,
                self.config.final_wait_s,
            )

    def _complete(self, completion: Event) -> None:
        try:
            self.hooks.complete(self, completion)
        finally:
            self._listeners.end()
            if self._pending.dropped:
                log.info(
                    "session %s (%s): %d event(s) were never narrated (their narration "
                    "failed); they are still in the recording",
                    self.id,
                    self.agent,
                    self._pending.dropped,
                )

    # -- events -------------------------------------------------------------------------

    def make_event(self, type: str, data: dict[str, Any] | None = None, **fields: Any) -> Event:
        """An event of this session (not yet dispatched); a bad payload raises
        :class:`~monologue.errors.EventValidationError` naming the field."""
        return Event.from_dict(
            {
                "type": type,
                "data": data or {},
                "session_id": self.id,
                "agent": fields.pop("agent", None) or self.agent,
                "task_id": fields.pop("task_id", None) or self.task_id,
                **fields,
            }
        )

    def emit(self, type: str, data: dict[str, Any] | None = None, **fields: Any) -> Event:
        """Create an event of any type (plugins may add types) and dispatch it."""
        event = self.make_event(type, data, **fields)
        self.dispatch(event)
        return event

    def _emit_checked(self, type: str, data: dict[str, Any]) -> Event:
        # For the helpers below, which check their arguments: see Event.trusted.
        event = Event.trusted(type, data, self.id, self.agent, self.task_id)  # positional: cheaper
        # dispatch()'s common case, less its checks that hold for a trusted event of ours.
        pipeline = self._pipeline
        if pipeline is None or self.sync_writes or self._status == "closed":
            return self.dispatch(event)
        if not pipeline.put(event):
            return self.dispatch(event)  # closed meanwhile: counted as late
        return event

    # The typed helpers check their arguments themselves and build complete payloads, so
    # their events skip pydantic (see Event.trusted); everything else goes through ``emit``.

    def tool_call(
        self, tool_name: str, input: dict[str, Any] | None = None, tool_use_id: str | None = None
    ) -> Event:
        """The agent calls a tool; the event's ``data["tool_use_id"]`` links its result."""
        # One combined test on the hot path; _check names the bad argument when it fails.
        if not (
            isinstance(tool_name, str)
            and isinstance(input, DICT_OR_NONE)
            and isinstance(tool_use_id, STR_OR_NONE)
        ):
            check("tool_call", "tool_name", tool_name, str)
            check("tool_call", "input", input, dict, optional=True)
            check("tool_call", "tool_use_id", tool_use_id, str, optional=True)
        return self._emit_checked(
            "tool_call",
            {"tool_name": tool_name, "tool_use_id": tool_use_id or new_id(), "input": input or {}},
        )

    def tool_result(
        self,
        tool_use_id: str,
        output: Any = "",
        is_error: bool = False,
        tool_name: str | None = None,
    ) -> Event:
        """A tool answered; ``tool_name`` defaults to the name of the matching call."""
        if not (
            isinstance(tool_use_id, str)
            and isinstance(is_error, bool)
            and isinstance(tool_name, STR_OR_NONE)
        ):
            check("tool_result", "tool_use_id", tool_use_id, str)
            check("tool_result", "is_error", is_error, bool)
            check("tool_result", "tool_name", tool_name, str, optional=True)
        if tool_name is None:
            call = self.open_tool_calls.get(tool_use_id)
            tool_name = call.data["tool_name"] if call is not None else None
        data = {
            "tool_use_id": tool_use_id,
            "tool_name": tool_name,
            "output": output,
            "is_error": is_error,
        }
        if not isinstance(output, SCALARS):
            # Structured output (content blocks, dicts) must be JSON: let pydantic check it.
            return self.emit("tool_result", data)
        return self._emit_checked("tool_result", data)

    def text(self, text: str) -> Event:
        check("text", "text", text, str)
        return self._emit_checked("text", {"text": text})

    def thinking(self, text: str) -> Event:
        check("thinking", "text", text, str)
        return self._emit_checked("thinking", {"text": text})

    def error(self, message: str, error_type: str | None = None) -> Event:
        return self.emit("error", {"message": message, "error_type": error_type})

    def user_message(self, text: str) -> Event:
        return self.emit("user_message", {"text": text})

    def hint(self, name: str) -> Event:
        """Tell the gate something (``user_waiting``, ``task_completed``, ``agent_failed``...)."""
        return self.emit("hint", {"name": name})

    # -- narration ----------------------------------------------------------------------

    def request_narration(self, reason: str = "buffer") -> None:
        """Ask the worker for a narration turn (the gate's idle watchdog uses ``idle``).

        From another thread than the pipeline's, the request is queued behind the events
        emitted before it, so that the turn covers them."""
        if self.narrator is None or self._status != "active":
            return
        pipeline = self._pipeline
        if pipeline is not None and not pipeline.on_thread:
            pipeline.post(lambda: self.request_narration(reason))
            return
        self._ensure_worker().request(reason)

    def _ensure_worker(self) -> NarrationWorker:
        worker = self._worker  # set once, never unset: no lock once it exists
        if worker is not None:
            return worker
        with self.lock:
            if self._worker is None:
                from ._worker import NarrationWorker

                assert self.narrator is not None
                self._worker = NarrationWorker(self, self._pending, self.hooks, self.narrator)
            return self._worker

    def turns_in_place(self) -> bool:
        """Run this session's narration turns, all but the final one, on its pipeline thread,
        each when :meth:`take_turn` is called there, instead of on the narration worker's
        thread and the narrator pool; only when its narrator declares its calls quick work
        in this process (``narrator_in_place``). Whether it does.

        For a caller that dispatches the events on the pipeline thread itself and calls
        :meth:`take_turn` after each one and whenever that thread is idle: an instant
        replay, which waits for each turn before its next event anyway. Call it before the
        first event."""
        if self.narrator is None or not self.hooks.narrator_in_place(self.narrator, self.config):
            return False
        self._ensure_worker().in_place = True
        return True

    def take_turn(self) -> None:
        """On the pipeline thread, after :meth:`turns_in_place`: run the narration turn asked
        for, if any, here, and deliver its narrative here."""
        worker = self._worker
        if worker is not None:
            worker.turn_in_place()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until the pipeline has run every event so far and no narration turn is
        running or requested (``False`` on timeout).

        Useful to pace a replay like a live agent (whose events are slower than its
        narrator) and in tests; agents never need it.
        """
        limit = self.config.narrate_timeout_s * 2 if timeout is None else timeout
        deadline = time.monotonic() + limit
        pipeline = self._pipeline
        if pipeline is not None and not pipeline.drain(deadline):
            return False
        if self._worker is None:
            return True
        if not self._worker.wait_idle(deadline):
            return False
        # The turn's narrative went back through the pipeline.
        return pipeline is None or pipeline.drain(deadline)

    @property
    def narration_disabled(self) -> bool:
        """True once repeated failures switched narration off for this session."""
        return self._worker is not None and self._worker.disabled

    def _count_check(self, checked: dict[str, Any]) -> None:
        status = checked.get("status")
        if status == "unchecked":
            self._counts.unchecked += 1
        elif status in ("retried", "fallback"):
            if not self._counts.claims_false:
                log_first_false(self.id, checked)
            self._counts.claims_false += 1

    def deliver(
        self,
        *,
        text: str,
        narrator: str,
        reason: str,
        covers: list[str],
        covers_range: list[str] | None = None,
        model: str | None = None,
        usage: Usage | None = None,
        latency_ms: float | None = None,
        checked: dict[str, Any] | None = None,
        folded: int = 0,
    ) -> Event | None:
        """Turn narration text into a ``narrative`` event and hand it to every listener;
        ``checked`` is the claim check's record (see :mod:`monologue.checking`).

        The event is built without validation (:meth:`Event.trusted`): the worker gives a
        validated :class:`~monologue.Narration`'s text, model and usage, and values the core
        made (the reason, the covered ids, the latency)."""
        narrative = Event.trusted(
            "narrative",
            {
                "text": text,
                "narrator": narrator,
                "model": model,
                "reason": reason,
                "covers": covers,
                "latency_ms": latency_ms,
                "usage": usage.model_dump() if usage is not None else None,
                # Only with a digest too large to list: see docs/formats.md.
                **({"covers_range": covers_range} if covers_range else {}),
                **({"checked": checked} if checked else {}),
                # How many of the covered events (the oldest) a digest told in one sentence.
                **({"folded": folded} if folded else {}),
            },
            self.id,
            self.agent,
            self.task_id,
            visibility="user",
        )
        with self.lock:
            if self._status == "closed":
                log.debug("narrative for closed session %s discarded", self.id)
                return None
            self.history.append(text)
            self.hints.clear()
            self.last_narrative_at = time.monotonic()
            self._counts.narratives += 1
            if checked:
                self._count_check(checked)
        pipeline = self._require_pipeline()
        if pipeline.post(lambda: self._deliver_on_pipeline(narrative)) is None:
            return None
        return narrative

    def _deliver_on_pipeline(self, narrative: Event) -> None:
        narrative = self._run_scrubbed(scrub_narrative(narrative), None)
        self.hooks.narrative(self, narrative)
        self._listeners.send(narrative)

    def subscribe(self, callback: NarrativeCallback | None = None) -> Any:
        """Receive narratives: ``subscribe(fn)`` calls ``fn(event)`` (returns an unsubscribe
        function); ``subscribe()`` in async code returns an async iterator that ends with the
        session."""
        if callback is not None:
            return self._listeners.add(callback)
        return self._listeners.stream()


def session(
    agent: str,
    task_id: str | None = None,
    on_narrative: NarrativeCallback | None = None,
    **config: Any,
) -> Session:
    """A new session for ``agent``; use it as ``with`` or ``async with``.

    Keyword arguments are configuration (``narrator="template"``, ``preset="terse"``...) and
    take precedence over every other source.
    """
    return Session(agent, task_id=task_id, on_narrative=on_narrative, **config)
