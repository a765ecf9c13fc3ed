"""What ``replay``, ``watch`` and ``log`` accept as input: a regular file, standard input
(``-``) or a FIFO, the last two read as streams; anything else (a character device such as
``/dev/zero``, a socket, a block device) is refused by name.

A stream is copied as it arrives into a private temporary file (a :class:`Spool`), because
format detection and reader plugins work on paths: detection then looks at the first lines
of the stream like it does for a file. Every wait on a stream is a ``select`` with a timeout,
so a silent writer (or none at all, on a FIFO) never blocks beyond the caller's limits, and
Ctrl-C interrupts it.
"""

from __future__ import annotations

import contextlib
import io
import os
import select
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Final

from monologue.errors import MonologueError

__all__ = ["STDIN", "STDIN_NAME", "Spool", "is_stream", "open_stream"]

STDIN: Final = "-"
STDIN_NAME: Final = "<stdin>"
_CHUNK: Final = 1 << 16

_REFUSED: Final = {
    stat.S_IFCHR: "a character device (like /dev/zero or a terminal)",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def is_stream(target: str) -> bool:
    """Whether ``target`` names a stream (``-`` or a FIFO), after checking that it can be
    read as a session at all; :class:`~monologue.errors.MonologueError` says why not."""
    if target == STDIN:
        if sys.stdin is None or sys.stdin.isatty():
            raise MonologueError(
                "standard input is a terminal: pipe a session into it, as in "
                "`claude -p ... --output-format stream-json | monologue watch -`"
            )
        return True
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        raise MonologueError(f"{target}: no such file") from None
    except OSError as exc:
        raise MonologueError(f"{target}: cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise MonologueError(f"{target}: is a directory, not a session file")
    if stat.S_ISFIFO(mode):
        return True
    kind = _REFUSED.get(stat.S_IFMT(mode))
    if kind is not None:
        raise MonologueError(f"{target}: is {kind}, not a session file; refusing to read it")
    try:
        with open(target, "rb"):
            pass
    except OSError as exc:
        raise MonologueError(f"{target}: cannot read: {exc.strerror or exc}") from None
    return False


class Spool:
    """A stream copied into a private temporary file as it arrives (:attr:`path`).

    :meth:`pump` copies what arrives within a timeout; :attr:`ended` is set at the end of
    the stream (the writer closed it). Use it as a context manager: the copy is removed.
    """

    def __init__(self, source: int | IO[bytes], name: str, *, owned: bool) -> None:
        self.name = name
        self._source = source
        self._owned = owned
        self._dir = Path(tempfile.mkdtemp(prefix="monologue-stream-"))
        self.path = self._dir / "stream"
        self._out = self.path.open("wb")
        self.ended = False
        self.received = 0

    def __enter__(self) -> Spool:
        return self

    def __exit__(self, *exc: object) -> None:
        self._out.close()
        if self._owned and isinstance(self._source, int):
            with contextlib.suppress(OSError):
                os.close(self._source)
        shutil.rmtree(self._dir, ignore_errors=True)

    def pump(self, timeout: float) -> bool:
        """Copy what arrives within ``timeout`` seconds; whether anything did."""
        if self.ended:
            return False
        source = self._source
        if isinstance(source, int):
            ready, _, _ = select.select([source], [], [], timeout)
            if not ready:
                return False
            try:
                chunk = os.read(source, _CHUNK)
            except BlockingIOError:
                return False
        else:  # a stand-in for standard input without a descriptor (an in-process test)
            chunk = source.read1(_CHUNK) if isinstance(source, io.BufferedIOBase) else b""
        if not chunk:
            self.ended = True
            return False
        self._out.write(chunk)
        self._out.flush()
        self.received += len(chunk)
        return True

    def read_all(self, timeout: float | None, on_wait: Callable[[], None]) -> None:
        """Copy the whole stream, until it ends or ``timeout`` seconds pass; ``on_wait`` is
        called once if nothing has arrived after a second."""
        started = time.monotonic()
        warned = False
        while not self.ended:
            waited = time.monotonic() - started
            if timeout is not None and waited >= timeout:
                return
            step = 0.5 if timeout is None else max(min(0.5, timeout - waited), 0.0)
            if not self.pump(step) and not self.received and not warned and waited >= 1:
                warned = True
                on_wait()


def open_stream(target: str) -> Spool:
    """A :class:`Spool` of standard input (``-``) or of the FIFO ``target``. Opening a FIFO
    does not wait for a writer: reading waits, with the caller's timeout."""
    if target == STDIN:
        try:
            return Spool(sys.stdin.fileno(), STDIN_NAME, owned=False)
        except (AttributeError, ValueError, io.UnsupportedOperation):
            return Spool(sys.stdin.buffer, STDIN_NAME, owned=False)
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise MonologueError(f"{target}: cannot read: {exc.strerror or exc}") from None
    return Spool(fd, target, owned=True)
