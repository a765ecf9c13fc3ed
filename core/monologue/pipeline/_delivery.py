"""Who hears a session's narratives: callbacks, and async iterators fed across threads."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from monologue.events import Event

NarrativeCallback = Callable[[Event], Any]
Report = Callable[[str, str, BaseException], None]


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


class Listeners:
    """A session's subscribers; a failing callback is reported and the others still hear."""

    def __init__(self, first: NarrativeCallback | None, report: Report) -> None:
        self._callbacks: list[NarrativeCallback] = [first] if first else []
        self._streams: list[NarrativeStream] = []
        self._report = report
        self._ended = False

    def add(self, callback: NarrativeCallback) -> Callable[[], None]:
        """Call ``callback(narrative)`` from now on; returns the function that stops it."""
        self._callbacks.append(callback)
        return lambda: self._callbacks.remove(callback)

    def stream(self) -> NarrativeStream:
        """A new async iterator of narratives, on the running event loop."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise RuntimeError(
                "subscribe() without a callback returns an async iterator and must be called "
                "from async code; pass a callback in sync code"
            ) from None
        stream = NarrativeStream(loop)
        self._streams.append(stream)
        if self._ended:
            stream.end()
        return stream

    def send(self, narrative: Event) -> None:
        for callback in list(self._callbacks):
            try:
                callback(narrative)
            except Exception as exc:
                self._report(f"on_narrative callback {callback!r}", "on_narrative", exc)
        for stream in list(self._streams):
            stream.put(narrative)

    def end(self) -> None:
        """The session closed: every async iterator stops."""
        self._ended = True
        for stream in self._streams:
            stream.end()
