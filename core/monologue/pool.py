"""A small pool of daemon threads for narrator calls.

``concurrent.futures.ThreadPoolExecutor`` joins its threads at interpreter exit, so one
narrator hanging on a dead socket would keep the agent's process alive forever. These
threads are daemons: a call abandoned after its timeout never holds the process.
"""

from __future__ import annotations

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

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._idle == 0 and self._threads < self._max:
                self._threads += 1
                self._idle += 1
                threading.Thread(
                    target=self._work, name=f"{self._name}-{self._threads}", daemon=True
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
                self._idle += 1


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
