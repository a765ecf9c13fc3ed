"""How events go through a session: queued on the agent's thread, run on the pipeline's.

Mixed into :class:`~monologue.Session`. :meth:`EventFlow.dispatch` is all the agent's thread
does with an event (bind it to the session, append it to the
:class:`~monologue._pipeline.Pipeline`); :meth:`EventFlow._run_event` is the event's way on
the pipeline thread: redaction, the session's counters and open calls, the pending buffer,
the ``on_event`` hooks, ``should_speak`` and, when it is time, a narration request.
``feed`` runs ``adapt`` plugins there too.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

from monologue.events import Event, silent_types
from monologue.lines import remember_line

from ._helpers import describe_keys
from ._queue import Pipeline
from ._scrub import scrub

if TYPE_CHECKING:
    from monologue.plugins._hooks import Hooks
    from monologue.settings import MonologueConfig

    from ._pending import PendingBuffer
    from ._session import Session, _Counts
    from ._worker import NarrationWorker

log = logging.getLogger("monologue.session")

# Never narrated, and never a reason to ask whether to speak: the core's own types and the
# ones plugins register as not narrated (a live set, so dispatch pays one lookup).
_SILENT_TYPES = silent_types()

__all__ = ["EventFlow"]


class EventFlow:
    """Mixed into :class:`~monologue.Session`, which supplies the members declared here."""

    if TYPE_CHECKING:
        id: str
        agent: str
        task_id: str | None
        config: MonologueConfig
        narrator: str | None
        lock: threading.RLock
        hints: list[str]
        open_tool_calls: dict[str, Event]
        last_event_at: float | None
        sync_writes: bool
        _status: Literal["new", "active", "closing", "closed"]
        _counts: _Counts
        _unadapted_kinds: set[str]
        _pending: PendingBuffer
        _pipeline: Pipeline | None
        _hooks: Hooks | None

        @property
        def hooks(self) -> Hooks: ...

        def request_narration(self, reason: str = "buffer") -> None: ...

        def _ensure_worker(self) -> NarrationWorker: ...

    def feed(self, obj: Any) -> list[Event]:
        """Dispatch whatever events an ``adapt`` plugin makes of ``obj`` (none if nobody can).

        Adapters are hooks, so they run on the pipeline thread: ``feed`` waits until the
        pipeline has adapted ``obj`` (after every event before it), within ``final_wait_s``,
        to return its events. Generator sessions do not wait (see :meth:`feed_later`)."""
        from monologue.events import Event as EventType

        if isinstance(obj, EventType):
            return [self.dispatch(obj)]
        pipeline = self._require_pipeline()
        if self._status == "closed":
            return []
        deadline = time.monotonic() + self.config.final_wait_s
        try:
            events: list[Event] = pipeline.call(lambda: self._adapt(obj), deadline)
        except TimeoutError:
            log.warning("session %s: the pipeline did not adapt a %s in time", self.id, obj)
            return []
        except RuntimeError:  # the pipeline stopped meanwhile: the session closed
            return []
        return events

    def feed_later(self, obj: Any) -> None:
        """:meth:`feed` without waiting: the events are made and dispatched on the pipeline
        thread (decorated generators feed what they yield this way)."""
        pipeline = self._require_pipeline()
        if pipeline.post(lambda: self._adapt(obj)) is None:
            with self.lock:
                self._counts.late_events += 1

    def _adapt(self, obj: Any) -> list[Event]:
        from monologue.events import Event as EventType

        if isinstance(obj, EventType):
            return [self.dispatch(obj)]
        events = self.hooks.adapt(obj, cast("Session", self))
        if events is None:
            self._counts.unadapted += 1
            self._report_unadapted(obj)
            return []
        return [self.dispatch(event) for event in events]

    def _report_unadapted(self, obj: Any) -> None:
        """Warn once per kind of object: a generator yielding something no plugin reads
        would otherwise give no narrative and no word why."""
        kind = type(obj).__qualname__
        if kind in self._unadapted_kinds:
            return
        self._unadapted_kinds.add(kind)
        shown = describe_keys(obj)
        log.warning(
            "session %s: no adapt plugin understood a %s (keys: %s); such objects are ignored",
            self.id,
            kind,
            shown,
        )

    def dispatch(self, event: Event) -> Event:
        """Queue one event for the pipeline. Returns the event as dispatched.

        Events from elsewhere (adapters, replays) are bound to this session: its id, and its
        agent and task where the event names none. Nothing else happens on the caller's
        thread (see :mod:`monologue._pipeline`), unless the recorder's durability is
        ``always`` (:attr:`sync_writes`).
        """
        if event.session_id != self.id or not event.agent:
            event = event.model_copy(
                update={
                    "session_id": self.id,
                    "agent": event.agent or self.agent,
                    "task_id": event.task_id or self.task_id,
                }
            )
        pipeline = self._pipeline
        if pipeline is None:
            self._require_pipeline()
        elif self._status != "closed" and pipeline.put(event):
            if self.sync_writes and not pipeline.on_thread:
                pipeline.drain(time.monotonic() + self.config.final_wait_s)
            return event
        with self.lock:
            self._counts.late_events += 1
        log.debug("event %s arrived after session %s closed; ignored", event.type, self.id)
        return event

    def _require_pipeline(self) -> Pipeline:
        if self._pipeline is None:
            raise RuntimeError(
                f"session {self.agent!r} has not started: use `with session(...)` "
                "or call .start() first"
            )
        return self._pipeline

    def _run_events(self, events: list[Event]) -> None:
        """A batch the pipeline took from its queue, on the pipeline thread: named, then
        redacted together, then run one by one, in order."""
        self._name_results(events)
        for event, line in scrub(events):
            try:
                self._run_scrubbed(event, line)
            except Exception:  # a bug here must not stop the batch
                log.exception("the pipeline failed on a %s event", event.type)

    def _run_event(self, event: Event) -> Event:
        """One event's way through the session, on the pipeline thread (an event put there,
        as an instant replay puts each one it reads); returns the event as the hooks saw it
        (redacted)."""
        if event.already_redacted:  # nothing to name either: it was named when recorded
            return self._run_scrubbed(event, None)
        if event.type == "tool_result":
            self._name_results((event,))
        ((event, line),) = scrub((event,))
        return self._run_scrubbed(event, line)

    def _name_results(self, events: Sequence[Event]) -> None:
        """Give each tool result its tool's name, when the helper that made it could not (the
        call was still in the queue): before the events are serialized, so that every sink
        sees the name."""
        calls: dict[str, str | None] = {}
        for event in events:
            kind = event.type
            if kind == "tool_call":
                calls[event.data["tool_use_id"]] = event.data.get("tool_name")
            elif kind == "tool_result" and event.data.get("tool_name") is None:
                use_id = event.data["tool_use_id"]
                name = calls.get(use_id)
                if name is None and (call := self.open_tool_calls.get(use_id)) is not None:
                    name = call.data["tool_name"]
                if name is not None:
                    event.data["tool_name"] = name

    def _run_scrubbed(self, event: Event, line: str | None) -> Event:
        """The rest of :meth:`_run_event`, for an event already named and redacted; ``line``
        is its JSON, if :func:`scrub` made it, kept for the recorder."""
        if line is not None:
            remember_line(event, line)
        kind = event.type
        data = event.data
        # A hint is asked about (it may make a should_speak plugin speak) but not narrated.
        asked = self.narrator is not None and kind not in _SILENT_TYPES
        with self.lock:
            counts = self._counts
            counts.events += 1
            self.last_event_at = time.monotonic()
            if kind == "tool_call":
                counts.tool_calls += 1
                self.open_tool_calls[data["tool_use_id"]] = event
            elif kind == "tool_result":
                self.open_tool_calls.pop(data["tool_use_id"], None)
                if data["is_error"]:
                    counts.tool_errors += 1
            elif kind == "hint":
                self.hints.append(data["name"])
            if asked and kind != "hint":
                self._pending.append(event)
        hooks = self._hooks or self.hooks  # resolved at start; skip the property per event
        session: Session = self  # type: ignore[assignment]  # the mixin is always a Session
        hooks.event(session, event)
        if not asked or kind == "completion":
            return event
        answer, _ = hooks.should_speak(session, event)
        if answer is False:
            return event
        if answer:
            reason = answer if isinstance(answer, str) else "buffer"
            if answer is True and len(self._pending) >= self.config.max_buffer_size:
                reason = "max_buffer"
        elif len(self._pending) >= self.config.max_buffer_size:
            reason = "max_buffer"
        else:
            return event
        # request_narration, less the checks that hold here (a narrator, the pipeline thread).
        if self._status == "active":
            self._ensure_worker().request(reason)
        return event

    def when_idle(self, fn: Callable[[], object]) -> None:
        """Run ``fn`` on the pipeline thread each time it has run every event queued so far
        (the recorder writes its waiting lines then). Call it from a hook."""
        self._require_pipeline().when_idle(fn)

    def drain(self, timeout: float | None = None) -> bool:
        """Block until every event emitted so far has been through the pipeline (its hooks
        run, the recorder handed it); ``False`` on timeout. Tests and replays use it."""
        pipeline = self._pipeline
        if pipeline is None:
            return True
        return pipeline.drain(None if timeout is None else time.monotonic() + timeout)
