"""One recording file: whole lines, appended in batches, safe across threads and processes.

Lines wait in a deque (appended by the session's pipeline thread, with no lock: a session's
events come from that one thread) and are written under a lock, by that thread or the
flusher's, with one ``os.write`` per batch on a descriptor opened with ``O_APPEND``: the
kernel appends each write whole, so threads and processes that share a file never
interleave partial lines, and a process killed between two writes leaves only complete
lines behind. The durability policy says how often a batch is written and
whether it is fsync'ed (see :data:`POLICIES` and docs/formats.md).

A write that fails (disk full, permissions, a vanished directory) is reported once, naming
the plugin and the file, and ends the recording of that session: the agent never notices.
A write cut short (the disk filled up in the middle of a line) is rolled back to the end of
the last whole line, so the file keeps the promise of whole lines only.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import logging
import os
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from monologue.files import make_private_folder
from monologue.lines import DEFAULT_MAX_EVENT_BYTES
from monologue.recording import event_line

if TYPE_CHECKING:
    from monologue.events import Event

log = logging.getLogger("monologue.recorder")

PLUGIN: Final = "monologue-recorder"


@dataclass(frozen=True)
class Policy:
    """When a recording's buffered lines reach the disk."""

    name: str
    max_events: int
    """Write as soon as this many lines wait."""
    max_bytes: int
    """... or this many characters."""
    window_s: float | None
    """... or this long after the first of them (``None``: no timer)."""
    fsync_each: bool
    fsync_at_close: bool


# Each write is a system call, and on a busy interpreter getting the GIL back after one can
# wait a switch interval (5 ms) behind a narrator thread: so a backlog is written in large
# batches, and a pipeline that has caught up writes at once (its idle callback).
BATCH_EVENTS: Final = 512
BATCH_BYTES: Final = 1 << 20
BATCH_WINDOW_S: Final = 0.2

POLICIES: Final[dict[str, Policy]] = {
    "always": Policy("always", 1, 0, None, fsync_each=True, fsync_at_close=True),
    "batch": Policy("batch", BATCH_EVENTS, BATCH_BYTES, BATCH_WINDOW_S, False, True),
    "never": Policy("never", 1024, BATCH_BYTES, None, fsync_each=False, fsync_at_close=False),
}
DEFAULT_POLICY: Final = "batch"


class RecordingFile:
    """The open recording of one session."""

    def __init__(
        self, path: Path, policy: Policy, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES
    ) -> None:
        self.path = path
        self.policy = policy
        self.max_event_bytes = max_event_bytes
        """Every event line is cut to fit this (see :func:`monologue.recording.event_line`)."""
        self.error: OSError | None = None
        """The first failure; the recording stopped there."""
        self._lock = threading.Lock()  # held for a write
        self._waiting: deque[str] = deque()
        self._chars = 0
        self._fd: int | None = None

    def open(self, header: str) -> bool:
        """Create the file (0600, in folders created 0700) and write the header line;
        ``False`` if that failed."""
        try:
            make_private_folder(self.path.parent)
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
            self._fd = os.open(self.path, flags, 0o600)
        except OSError as exc:
            self._fail(exc)
            return False
        with self._lock:
            self._waiting.append(header)
            self._write_locked()
        if self._fd is not None:
            _open_files.add(self)
        return self._fd is not None

    def append_event(self, event: Event) -> None:
        """Queue one event's line, within the size budget. Events come from a session's
        pipeline, which redacted them before any hook saw them and made their line."""
        self.append(event_line(event, self.max_event_bytes, redacted=True))

    def append(self, line: str) -> None:
        """Queue one line (without its newline); write it when the policy says so. Called
        from one thread (the session's pipeline); the flusher thread only writes."""
        if self._fd is None:
            return
        waiting = self._waiting
        waiting.append(line)
        # The flusher's write may reset the count meanwhile: a batch is written early, never late.
        self._chars += len(line)
        policy = self.policy
        if len(waiting) >= policy.max_events or self._chars >= policy.max_bytes:
            self.flush()
        elif len(waiting) == 1 and policy.window_s is not None:
            _flusher.schedule(self)

    def flush(self) -> None:
        with self._lock:
            self._write_locked()

    def close(self) -> None:
        """Write what waits, fsync if the policy says so, and close the file."""
        with self._lock:
            self._write_locked()
            fd, self._fd = self._fd, None
            if fd is None:
                return
            try:
                if self.policy.fsync_at_close:
                    os.fsync(fd)
            except OSError as exc:
                self._fail(exc)
            finally:
                os.close(fd)
        _open_files.discard(self)

    def _write_locked(self) -> None:
        waiting = self._waiting
        if not waiting or self._fd is None:
            return
        # Only the lock's holder takes lines: what is appended meanwhile waits its turn.
        lines = [waiting.popleft() for _ in range(len(waiting))]
        lines.append("")
        data = "\n".join(lines).encode("utf-8")
        self._chars = 0
        fd = self._fd
        view = memoryview(data)
        try:
            while view:
                # Regular files only write short on errors (a full disk): the next write
                # raises the error.
                view = view[os.write(fd, view) :]
            if self.policy.fsync_each:
                os.fsync(fd)
        except OSError as exc:
            self._fd = None
            ending = _end_on_whole_line(fd, data, len(data) - len(view))
            with contextlib.suppress(OSError):
                os.close(fd)
            self._fail(exc, ending)

    def _fail(self, exc: OSError, ending: str = "") -> None:
        if self.error is not None:
            return
        self.error = exc
        reason = exc.strerror or str(exc)
        if exc.errno == errno.ENOSPC:
            reason = "the disk is full"
        log.error(
            "%s: cannot write the recording %s (%s); recording of this session stops here%s, "
            "the agent goes on",
            PLUGIN,
            self.path,
            reason,
            ending,
        )


def _end_on_whole_line(fd: int, data: bytes, written: int) -> str:
    """After a failed write of ``data`` of which ``written`` bytes reached the file, make the
    file end on a whole line again; says what was done, for the error message."""
    partial = written - (data.rfind(b"\n", 0, written) + 1)
    if not partial:
        return ""
    try:
        end = os.fstat(fd).st_size
        # O_APPEND: the partial line is what the file ends with.
        if end >= partial:
            os.ftruncate(fd, end - partial)
            return f" (a partly written line of {partial} bytes was removed)"
    except OSError:
        pass
    try:
        os.write(fd, b"\n")
    except OSError:
        return f" (the last {partial} bytes are a partly written line; readers skip it)"
    return f" (a partly written line of {partial} bytes was ended; readers skip it)"


class _Flusher:
    """One daemon thread per process that writes batches left waiting for the window."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._due: dict[RecordingFile, float] = {}
        self._thread: threading.Thread | None = None

    def schedule(self, file: RecordingFile) -> None:
        window = file.policy.window_s or 0.0
        with self._cond:
            if file in self._due:
                # Due already (its lines were written since, by the pipeline): the flusher
                # will find them, or nothing, then; waking it now would only take the GIL.
                return
            self._due[file] = time.monotonic() + window
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="monologue-recorder-flush", daemon=True
                )
                self._thread.start()
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._due:
                    self._cond.wait()
                now = time.monotonic()
                ready = [file for file, due in self._due.items() if due <= now]
                if not ready:
                    self._cond.wait(min(self._due.values()) - now)
                    continue
                for file in ready:
                    del self._due[file]
            for file in ready:
                file.flush()


_flusher = _Flusher()
_open_files: weakref.WeakSet[RecordingFile] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    # The flusher thread did not survive the fork, and the parent's waiting lines are the
    # parent's to write: a child that wrote them too would record them twice.
    global _flusher, _open_files
    _flusher = _Flusher()
    _open_files = weakref.WeakSet()


def flush_all() -> None:
    """Write every waiting line of every open recording (at interpreter exit, say)."""
    for file in list(_open_files):
        file.flush()


atexit.register(flush_all)
if hasattr(os, "register_at_fork"):  # POSIX only
    os.register_at_fork(after_in_child=_after_fork_in_child)
