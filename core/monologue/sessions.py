"""Sessions: one agent run's events, buffer, history and narration.

``session()`` creates a :class:`Session`, used as a sync or async context manager;
``current()`` is the session of the running scope (a context variable, so asyncio tasks and
threads never share one by accident). Every event goes through :meth:`Session.dispatch`:
appended to ``pending``, broadcast to the plugins, then ``should_speak`` decides whether the
narration worker should take a turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar, Token
from dataclasses import asdict, dataclass
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from .config import MonologueConfig, load_config
from .events import Event, Usage, utcnow
from .ids import new_id

if TYPE_CHECKING:
    from .hooks import Hooks
    from .plugins import MonologuePluginManager
    from .worker import NarrationWorker

log = logging.getLogger("monologue.session")

_current: ContextVar[Session | None] = ContextVar("monologue_session", default=None)

# Never narrated, and never a reason to ask whether to speak.
_SILENT_TYPES = frozenset({"narrative", "narration_suppressed", "summary_refresh"})
# Asked about (a hint may make the gate speak) but not narrated themselves.
_UNBUFFERED_TYPES = _SILENT_TYPES | {"hint"}
_RESULT_LIMIT = 2000
# Past the final narration's deadline, how long close() still waits for the worker to record
# the outcome (a timeout's narration_suppressed event) before on_complete flushes.
_CLOSE_GRACE_S = 0.2

NarrativeCallback = Callable[[Event], Any]


def current() -> Session | None:
    """The session of the running scope, or ``None`` outside any."""
    return _current.get()


@dataclass
class SessionStats:
    """Counters a session keeps; ``monologue replay --json`` prints them."""

    events: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    narratives: int = 0
    waits: int = 0
    narrator_failures: int = 0
    dropped: int = 0
    unadapted: int = 0
    late_events: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


class Session:
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
        if config is None:
            config = load_config(overrides)
        elif overrides:
            config = load_config({**config.model_dump(exclude_unset=True), **overrides})
        self.config = config
        self.agent = agent
        self.task_id = task_id
        self.id = session_id or new_id()
        self.meta: dict[str, Any] = dict(meta or {})
        self.lock = threading.RLock()
        self.pending: list[Event] = []
        self.history: deque[str] = deque(maxlen=config.history_size)
        self.hints: list[str] = []
        """Hints received since the last narrative (the gate reads them)."""
        self.open_tool_calls: dict[str, Event] = {}
        """Tool calls without a result yet, by ``tool_use_id``."""
        self.state: dict[str, Any] = {}
        """Scratch space for plugins, keyed by plugin name."""
        self.stats = SessionStats()
        self.started_at: datetime | None = None
        self.last_event_at: float | None = None
        self.last_narrative_at: float | None = None
        """``time.monotonic()`` of the last delivered narrative."""
        self.narrator: str | None = None
        self._pm = pm
        self._hooks: Hooks | None = None
        self._status: Literal["new", "active", "closing", "closed"] = "new"
        self._worker: NarrationWorker | None = None
        self._callbacks: list[NarrativeCallback] = [on_narrative] if on_narrative else []
        self._streams: list[NarrativeStream] = []
        self._tokens: list[Token[Session | None]] = []
        self._warned_drop = False

    # -- properties ---------------------------------------------------------------------

    @property
    def hooks(self) -> Hooks:
        if self._hooks is None:
            from .plugins import get_plugin_manager

            self._hooks = (self._pm or get_plugin_manager()).hooks
        return self._hooks

    @property
    def is_first(self) -> bool:
        """True until the first narrative has been delivered."""
        return self.stats.narratives == 0

    @property
    def active(self) -> bool:
        return self._status in ("active", "closing")

    @property
    def closed(self) -> bool:
        return self._status == "closed"

    def __repr__(self) -> str:
        return f"<Session {self.agent!r} {self.id} {self._status}>"

    # -- lifecycle ----------------------------------------------------------------------

    def start(self) -> Session:
        """Resolve the narrator (failing now if it cannot run) and fire ``on_session_start``."""
        if self._status != "new":
            return self
        self.narrator = self.hooks.resolve_narrator(self.config)
        self.started_at = utcnow()
        self._status = "active"
        self.hooks.session_start(self)
        return self

    def __enter__(self) -> Session:
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

    async def __aenter__(self) -> Session:
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

    def close(self, result: Any = None, error: BaseException | None = None) -> None:
        """End the session: completion event, final narration (bounded), ``on_complete``."""
        completion, deadline = self._begin_close(result, error)
        if completion is None:
            return
        try:
            if self._worker is not None:
                self._worker.wait_idle(deadline + _CLOSE_GRACE_S)
        finally:
            self._end_close(completion)

    async def aclose(self, result: Any = None, error: BaseException | None = None) -> None:
        """:meth:`close` for async code: waits for the final narration without blocking."""
        completion, deadline = self._begin_close(result, error)
        if completion is None:
            return
        try:
            if self._worker is not None:
                await asyncio.to_thread(self._worker.wait_idle, deadline + _CLOSE_GRACE_S)
        finally:
            self._end_close(completion)

    def _begin_close(self, result: Any, error: BaseException | None) -> tuple[Event | None, float]:
        with self.lock:
            if self._status == "new":
                self.start()
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
            {"result": _jsonable(result), "is_error": error is not None},
        )
        deadline = time.monotonic() + self.config.narrate_timeout_s
        with self.lock:
            # A buffer holding nothing but the completion itself has nothing to narrate.
            if all(event.type == "completion" for event in self.pending):
                self.pending.clear()
            elif self.narrator is not None:
                self._ensure_worker().finish(deadline)
        return completion, deadline

    def _end_close(self, completion: Event) -> None:
        with self.lock:
            self._status = "closed"
            if self._worker is not None:
                self._worker.stop()
        try:
            self.hooks.complete(self, completion)
        finally:
            for stream in self._streams:
                stream.end()
            if self.stats.dropped:
                log.info(
                    "session %s (%s): %d event(s) were never narrated (buffer cap %d, or "
                    "narrator failures); they are still in the recording",
                    self.id,
                    self.agent,
                    self.stats.dropped,
                    self.config.buffer_cap,
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
        event = Event.trusted(
            type, data, session_id=self.id, agent=self.agent, task_id=self.task_id
        )
        self.dispatch(event)
        return event

    def tool_call(
        self, tool_name: str, input: dict[str, Any] | None = None, tool_use_id: str | None = None
    ) -> Event:
        """The agent calls a tool; the event's ``data["tool_use_id"]`` links its result."""
        _check("tool_call", "tool_name", tool_name, str)
        _check("tool_call", "input", input, dict, optional=True)
        _check("tool_call", "tool_use_id", tool_use_id, str, optional=True)
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
        _check("tool_result", "tool_use_id", tool_use_id, str)
        _check("tool_result", "is_error", is_error, bool)
        _check("tool_result", "tool_name", tool_name, str, optional=True)
        if tool_name is None:
            call = self.open_tool_calls.get(tool_use_id)
            tool_name = call.data["tool_name"] if call is not None else None
        data = {
            "tool_use_id": tool_use_id,
            "tool_name": tool_name,
            "output": output,
            "is_error": is_error,
        }
        if not isinstance(output, _SCALARS):
            # Structured output (content blocks, dicts) must be JSON: let pydantic check it.
            return self.emit("tool_result", data)
        return self._emit_checked("tool_result", data)

    def text(self, text: str) -> Event:
        _check("text", "text", text, str)
        return self._emit_checked("text", {"text": text})

    def thinking(self, text: str) -> Event:
        _check("thinking", "text", text, str)
        return self._emit_checked("thinking", {"text": text})

    def error(self, message: str, error_type: str | None = None) -> Event:
        return self.emit("error", {"message": message, "error_type": error_type})

    def user_message(self, text: str) -> Event:
        return self.emit("user_message", {"text": text})

    def hint(self, name: str) -> Event:
        """Tell the gate something (``user_waiting``, ``task_completed``, ``agent_failed``...)."""
        return self.emit("hint", {"name": name})

    def feed(self, obj: Any) -> list[Event]:
        """Dispatch whatever events an ``adapt`` plugin makes of ``obj`` (none if nobody can)."""
        from .events import Event as EventType

        if isinstance(obj, EventType):
            events: list[Event] | None = [obj]
        else:
            events = self.hooks.adapt(obj, self)
        if events is None:
            self.stats.unadapted += 1
            log.debug("no adapt plugin understood a %s; ignored", type(obj).__name__)
            return []
        return [self.dispatch(event) for event in events]

    def dispatch(self, event: Event) -> Event:
        """Run one event through the pipeline. Returns the event as dispatched.

        Events from elsewhere (adapters, replays) are bound to this session: its id, and its
        agent and task where the event names none.
        """
        if event.session_id != self.id or not event.agent:
            event = event.model_copy(
                update={
                    "session_id": self.id,
                    "agent": event.agent or self.agent,
                    "task_id": event.task_id or self.task_id,
                }
            )
        kind = event.type
        with self.lock:
            if self._status not in ("active", "closing"):
                if self._status == "new":
                    raise RuntimeError(
                        f"session {self.agent!r} has not started: use `with session(...)` "
                        "or call .start() first"
                    )
                self.stats.late_events += 1
                log.debug("event %s arrived after session %s closed; ignored", kind, self.id)
                return event
            self.stats.events += 1
            self.last_event_at = time.monotonic()
            if kind == "tool_call":
                self.stats.tool_calls += 1
                self.open_tool_calls[event.data["tool_use_id"]] = event
            elif kind == "tool_result":
                self.open_tool_calls.pop(event.data["tool_use_id"], None)
                if event.data["is_error"]:
                    self.stats.tool_errors += 1
            elif kind == "hint":
                self.hints.append(event.data["name"])
            if kind not in _UNBUFFERED_TYPES and self.narrator is not None:
                self.pending.append(event)
                if len(self.pending) > self.config.buffer_cap:
                    self.enforce_cap()
        hooks = self.hooks
        hooks.event(self, event)
        if kind in _SILENT_TYPES or kind == "completion" or self.narrator is None:
            return event
        answer, _ = hooks.should_speak(self, event)
        if answer is False:
            return event
        if answer:
            reason = answer if isinstance(answer, str) else "buffer"
            if answer is True and len(self.pending) >= self.config.max_buffer_size:
                reason = "max_buffer"
        elif len(self.pending) >= self.config.max_buffer_size:
            reason = "max_buffer"
        else:
            return event
        self.request_narration(reason)
        return event

    def enforce_cap(self) -> None:
        """Drop the oldest buffered events beyond ``buffer_cap`` (call with the lock held)."""
        excess = len(self.pending) - self.config.buffer_cap
        if excess <= 0:
            return
        del self.pending[:excess]
        self.stats.dropped += excess
        if not self._warned_drop:
            self._warned_drop = True
            log.warning(
                "session %s (%s): narration buffer reached its cap of %d events; the oldest "
                "are dropped from narration (they are still recorded) while narrator %r is "
                "busy or waiting, or a should_speak plugin holds",
                self.id,
                self.agent,
                self.config.buffer_cap,
                self.narrator,
            )

    # -- narration ----------------------------------------------------------------------

    def request_narration(self, reason: str = "buffer") -> None:
        """Ask the worker for a narration turn (the gate's idle watchdog uses ``idle``)."""
        if self.narrator is None or self._status != "active":
            return
        self._ensure_worker().request(reason)

    def _ensure_worker(self) -> NarrationWorker:
        with self.lock:
            if self._worker is None:
                from .worker import NarrationWorker

                assert self.narrator is not None
                self._worker = NarrationWorker(self, self.hooks, self.narrator)
            return self._worker

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until no narration turn is running or requested (``False`` on timeout).

        Useful to pace a replay like a live agent (whose events are slower than its
        narrator) and in tests; agents never need it.
        """
        if self._worker is None:
            return True
        limit = self.config.narrate_timeout_s * 2 if timeout is None else timeout
        return self._worker.wait_idle(time.monotonic() + limit)

    @property
    def narration_disabled(self) -> bool:
        """True once repeated failures switched narration off for this session."""
        return self._worker is not None and self._worker.disabled

    def deliver(
        self,
        *,
        text: str,
        narrator: str,
        reason: str,
        covers: list[str],
        model: str | None = None,
        usage: Usage | None = None,
        latency_ms: float | None = None,
    ) -> Event | None:
        """Turn narration text into a ``narrative`` event and hand it to every listener."""
        narrative = self.make_event(
            "narrative",
            {
                "text": text,
                "narrator": narrator,
                "model": model,
                "reason": reason,
                "covers": covers,
                "latency_ms": latency_ms,
                "usage": usage.model_dump() if usage is not None else None,
            },
            visibility="user",
        )
        with self.lock:
            if self._status == "closed":
                log.debug("narrative for closed session %s discarded", self.id)
                return None
            self.history.append(text)
            self.hints.clear()
            self.last_narrative_at = time.monotonic()
            self.stats.narratives += 1
        self.dispatch(narrative)
        self.hooks.narrative(self, narrative)
        for callback in list(self._callbacks):
            try:
                callback(narrative)
            except Exception as exc:
                self.hooks.report(f"on_narrative callback {callback!r}", "on_narrative", exc)
        for stream in list(self._streams):
            stream.put(narrative)
        return narrative

    def subscribe(self, callback: NarrativeCallback | None = None) -> Any:
        """Receive narratives: ``subscribe(fn)`` calls ``fn(event)`` (returns an unsubscribe
        function); ``subscribe()`` in async code returns an async iterator that ends with the
        session."""
        if callback is not None:
            self._callbacks.append(callback)
            return lambda: self._callbacks.remove(callback)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise RuntimeError(
                "subscribe() without a callback returns an async iterator and must be called "
                "from async code; pass a callback in sync code"
            ) from None
        stream = NarrativeStream(loop)
        self._streams.append(stream)
        if self.closed:
            stream.end()
        return stream


class NarrativeStream:
    """Async iterator of a session's narratives, fed from the worker thread."""

    _END = object()

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._queue: asyncio.Queue[Any] = asyncio.Queue()

    def put(self, item: Any) -> None:
        # A closed loop raises RuntimeError: nobody is listening any more.
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._queue.put_nowait, item)

    def end(self) -> None:
        self.put(self._END)

    def __aiter__(self) -> AsyncIterator[Event]:
        return self

    async def __anext__(self) -> Event:
        item = await self._queue.get()
        if item is self._END:
            raise StopAsyncIteration
        return item  # type: ignore[no-any-return]


_SCALARS = (str, int, float, bool, type(None))


def _check(helper: str, name: str, value: Any, expected: type, *, optional: bool = False) -> None:
    if (value is None and optional) or isinstance(value, expected):
        return
    raise TypeError(
        f"{helper}(): {name} must be {expected.__name__}"
        f"{' or None' if optional else ''}, not {type(value).__name__}"
    )


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


def _jsonable(value: Any) -> Any:
    """A JSON-safe, bounded rendering of a function's return value for the completion event."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return value if len(value) <= _RESULT_LIMIT else value[:_RESULT_LIMIT] + "…"
    try:
        text = json.dumps(value, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    else:
        if len(text) <= _RESULT_LIMIT:
            return json.loads(text)
    return text if len(text) <= _RESULT_LIMIT else text[:_RESULT_LIMIT] + "…"
