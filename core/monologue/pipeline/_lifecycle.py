"""How a session opens and ends: as a context manager, and through ``close``/``aclose``.

Closing emits the completion (and the error that ended the scope), waits for the pipeline
to run everything queued and for the worker's final turn, both bounded by ``final_wait_s``,
then fires ``on_complete`` on the pipeline thread (which ends after it, within another
``final_wait_s``) and ends the subscribers' streams. Live sessions are also closed on
SIGTERM (``_shutdown``).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Mapping
from contextvars import ContextVar, Token
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, Self, cast

from . import _shutdown
from ._helpers import jsonable

if TYPE_CHECKING:
    from monologue.config import MonologueConfig
    from monologue.events import Event
    from monologue.plugins._hooks import Hooks

    from ._delivery import Listeners
    from ._pending import PendingBuffer
    from ._queue import Pipeline
    from ._session import Session
    from ._worker import NarrationWorker

log = logging.getLogger("monologue.session")

_current: ContextVar[Session | None] = ContextVar("monologue_session", default=None)

# Past the final narration's deadline, how long close() still waits for the worker to record
# the outcome (a timeout's narration_suppressed event) before on_complete flushes.
_CLOSE_GRACE_S = 0.2


def current() -> Session | None:
    """The session of the running scope, or ``None`` outside any."""
    return _current.get()


class Lifecycle:
    """Mixed into :class:`~monologue.Session`, which supplies the members declared here."""

    if TYPE_CHECKING:
        id: str
        agent: str
        config: MonologueConfig
        narrator: str | None
        lock: threading.RLock

        @property
        def hooks(self) -> Hooks: ...

        _status: Literal["new", "active", "closing", "closed"]
        _pending: PendingBuffer
        _worker: NarrationWorker | None
        _listeners: Listeners
        _tokens: list[Token[Session | None]]

        def start(self) -> Self: ...
        def emit(self, type: str, data: dict[str, Any] | None = None, **fields: Any) -> Event: ...
        def _ensure_worker(self) -> NarrationWorker: ...
        def _require_pipeline(self) -> Pipeline: ...

    def __enter__(self) -> Self:
        self.start()
        self._tokens.append(_current.set(cast("Session", self)))
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
        if self._worker is not None:
            # A turn asked for but not yet started would otherwise merge into the final one,
            # which tells the ending instead of what that turn held.
            self._worker.wait_taken(deadline)
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
        if self._worker is not None:
            await asyncio.to_thread(self._worker.wait_taken, deadline)
        completion, deadline = self._begin_close(result, error, None, deadline)
        if completion is None:
            return
        try:
            await asyncio.to_thread(self._wait_for_final, deadline)
        finally:
            await asyncio.to_thread(self._end_close, completion)

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
            # A buffer holding nothing but the completion itself has nothing to narrate.
            if self._pending.only("completion"):
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
        _shutdown.untrack(cast("Session", self))
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
            self.hooks.complete(cast("Session", self), completion)
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
