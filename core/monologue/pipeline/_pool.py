"""A small pool of daemon threads for narrator calls.

``concurrent.futures.ThreadPoolExecutor`` joins its threads at interpreter exit, so one
narrator hanging on a dead socket would keep the agent's process alive forever. These
threads are daemons: a call abandoned after its timeout never holds the process.

A call its caller stopped waiting for (:meth:`DaemonPool.abandon`) no longer counts against
``max_workers``: the pool may start a thread in its place, and the abandoned call's thread
ends when the call returns. So calls that never return cannot exhaust the pool (the
per-narrator pause in ``_overdue`` bounds how many there are).
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")


class DaemonPool:
    """Runs callables on up to ``max_workers`` reusable daemon threads."""

    def __init__(self, max_workers: int = 32, name: str = "monologue-call") -> None:
        self._max = max_workers
        self._name = name
        self._queue: queue.SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]]
        self._queue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0
        self._abandoned: set[Future[Any]] = set()
        self._numbers = itertools.count(1)

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._idle <= 0 and self._threads < self._max:  # idle < 0: calls queued
                self._threads += 1
                self._idle += 1
                threading.Thread(
                    target=self._work, name=f"{self._name}-{next(self._numbers)}", daemon=True
                ).start()
            self._idle -= 1
        self._queue.put((future, fn, args))
        return future

    def _work(self) -> None:
        while True:
            future, fn, args = self._queue.get()
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args))
                except BaseException as exc:
                    future.set_exception(exc)
            with self._lock:
                if future in self._abandoned:
                    self._abandoned.discard(future)
                    return  # a thread took this one's place when the call was abandoned
                self._idle += 1

    def abandon(self, future: Future[Any]) -> None:
        """Nobody waits for ``future`` any more: while it runs, its thread is not counted."""
        with self._lock:
            if future.running():
                self._abandoned.add(future)
                self._threads -= 1


_pool: DaemonPool | None = None
_pool_lock = threading.Lock()


def narrator_pool() -> DaemonPool:
    """The process-wide pool narrator calls run on."""
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = DaemonPool(name="monologue-narrator")
    return _pool
