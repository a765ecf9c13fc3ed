"""Group commit for the journal: one ``fdatasync`` makes several processes' steps durable.

A flush of the journal covers every line written to it before the flush began, whoever
wrote it. So a process that wants its line on disk takes the flush lock
(``tasks.graph.json.flush``, ``flock``, blocking: waiting for the flush under way is the
point), and looks at the mark in that file, how far the journal is known to be flushed: if
its line is below it, someone else's flush covered it and it is done without touching the
disk; else it flushes, and moves the mark to where the journal ended when its flush began.
While one process waits for the disk, the others append and queue up behind it, and the
next flush makes them all durable at once: the more processes, the more steps per flush.

The mark is ``(generation, offset)``. A newer generation means the journal was compacted
into a snapshot, written durably, after every line of the older one: those are covered.
The mark lives only as long as the processes need it; a missing or short file reads as
nothing flushed.
"""

from __future__ import annotations

import fcntl
import os
import struct
from pathlib import Path

from .files import open_private

__all__ = ["GroupCommit"]

_MARK = struct.Struct("<QQ")


class GroupCommit:
    """The flush lock and mark of one graph, shared by every process that writes it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._pid = 0

    def sync(self, journal_fd: int, generation: int, offset: int) -> None:
        """Return once the journal of ``generation`` is durable up to ``offset``."""
        fd = self._open()
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            if self._mark(fd) >= (generation, offset):
                return
            end = os.fstat(journal_fd).st_size
            os.fdatasync(journal_fd)
            os.pwrite(fd, _MARK.pack(generation, end), 0)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    def forget(self, generation: int, offset: int) -> None:
        """The journal of ``generation`` was cut back to ``offset``: a mark beyond it
        counted bytes that are gone, and new lines there are not flushed yet."""
        fd = self._open()
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            if self._mark(fd) > (generation, offset):
                os.pwrite(fd, _MARK.pack(generation, offset), 0)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    def _open(self) -> int:
        if self._fd is None or self._pid != os.getpid():  # a forked child needs its own
            self._fd, self._pid = open_private(self.path, os.O_RDWR | os.O_CREAT), os.getpid()
        return self._fd

    @staticmethod
    def _mark(fd: int) -> tuple[int, int]:
        raw = os.pread(fd, _MARK.size, 0)
        return _MARK.unpack(raw) if len(raw) == _MARK.size else (0, 0)

    def close(self) -> None:
        if self._fd is not None and self._pid == os.getpid():
            os.close(self._fd)
        self._fd = None
