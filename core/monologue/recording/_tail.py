"""Following a file that is still being written: its complete lines, as they are appended.

Public as :class:`monologue.recording.LineTail`; it works for any JSONL format.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import IO, Final

from monologue.errors import RecordingError
from monologue.lines import MAX_LINE_BYTES

_CHUNK_BYTES: Final = 1 << 20


def line_too_long() -> str:
    """The problem of a line over :data:`~monologue.lines.MAX_LINE_BYTES`, in readers' words."""
    return f"line is longer than the {MAX_LINE_BYTES >> 20} MiB limit; refusing to read it"


class LineTail:
    """The complete lines appended to a file that is still being written (any JSONL format).

    Each :meth:`read` returns the lines completed since the last one, numbered from 1; a
    line the writer is still writing waits for its newline (:attr:`partial`). A file that
    shrinks, or a line growing past ``MAX_LINE_BYTES``, raises
    :class:`~monologue.errors.RecordingError`, unless ``skip_long`` is given: it is then
    called with the line's number and the line is passed over, up to its newline. Use it as
    a context manager.
    """

    def __init__(self, path: Path, skip_long: Callable[[int], None] | None = None) -> None:
        self.path = path
        self.lineno = 0
        """The number of the last complete line returned."""
        self._buffer = bytearray()
        self._stream: IO[bytes] | None = None
        self._skip_long = skip_long
        self._skipping = False
        """Inside an over-long line being passed over."""

    def __enter__(self) -> LineTail:
        self._stream = self.path.open("rb")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    @property
    def partial(self) -> bytes:
        """What follows the last complete line (a line being written)."""
        return bytes(self._buffer)

    def read(self) -> list[tuple[int, bytes]]:
        """The ``(lineno, line)`` pairs completed since the last read, newlines included;
        ``[]`` when the file has not grown."""
        if self._stream is None:
            raise RuntimeError("LineTail.read outside its `with` block")
        chunk = self._stream.read(_CHUNK_BYTES)
        if not chunk:
            self._check_size(self._stream.tell())
            return []
        buffer = self._buffer
        buffer += chunk
        lines = []
        start = 0
        if self._skipping:
            end = buffer.find(b"\n")
            if end < 0:
                buffer.clear()
                return []
            self._skipping = False
            self.lineno += 1
            start = end + 1
        while (end := buffer.find(b"\n", start)) >= 0:
            self.lineno += 1
            if end - start >= MAX_LINE_BYTES:  # it grew past the limit within one read
                self._too_long(self.lineno)
            else:
                lines.append((self.lineno, bytes(buffer[start : end + 1])))
            start = end + 1
        del buffer[:start]
        if len(buffer) > MAX_LINE_BYTES:
            self._too_long(self.lineno + 1)
            buffer.clear()
            self._skipping = True
        return lines

    def _too_long(self, lineno: int) -> None:
        if self._skip_long is None:
            raise RecordingError(self.path, lineno, line_too_long())
        self._skip_long(lineno)

    def _check_size(self, offset: int) -> None:
        try:
            shrank = self.path.stat().st_size < offset
        except OSError as exc:
            raise RecordingError(self.path, None, f"cannot watch: {exc.strerror}") from None
        if shrank:
            raise RecordingError(self.path, None, "the file shrank while being watched")
