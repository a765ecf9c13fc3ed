"""The graph's lock: ``flock`` on ``tasks.graph.json.lock``, waited for with a short backoff.

filelock does the same with a fixed poll interval and per-call bookkeeping that cost more
than the whole critical section of a claim; a lock taken hundreds of times a second by
several processes needs its waiters to come back quickly, but not to spin.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from .files import open_private

__all__ = ["GraphLock", "LockTimeout"]

_FIRST_WAIT_S = 0.00005
_LONGEST_WAIT_S = 0.0002


class LockTimeout(Exception):
    """The lock stayed held by someone else for the whole timeout."""


class GraphLock:
    """An exclusive lock between processes (threads of one process take turns through
    the store's own mutex)."""

    def __init__(self, path: Path, timeout: float) -> None:
        self.path = path
        self.timeout = timeout
        self._fd: int | None = None
        self._pid = 0

    def acquire(self) -> None:
        if self._fd is None or self._pid != os.getpid():  # a forked child needs its own
            self._fd, self._pid = open_private(self.path, os.O_RDWR | os.O_CREAT), os.getpid()
        deadline = time.monotonic() + self.timeout
        wait = _FIRST_WAIT_S
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeout(self.path) from None
                time.sleep(wait)
                wait = min(wait * 2, _LONGEST_WAIT_S)

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        if self._fd is not None and self._pid == os.getpid():
            os.close(self._fd)
        self._fd = None
