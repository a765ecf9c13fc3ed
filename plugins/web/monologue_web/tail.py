"""Following one recording as it grows, with the core's reader (:mod:`monologue.recording`).

:class:`~monologue.recording.LineTail` gives the complete lines appended since the last read
(a line still being written waits for its newline) and
:class:`~monologue.recording.RecordingDecoder` turns each into an event. A viewer must keep
showing the rest of a session, so a line that does not parse is skipped with a warning
instead of ending the stream.
"""

from __future__ import annotations

import logging
from collections import deque
from pathlib import Path

from monologue.errors import RecordingError
from monologue.events import Event, RecordingHeader
from monologue.recording import LineTail, RecordingDecoder, looks_like_recording

__all__ = ["NotARecording", "RecordingTail"]

log = logging.getLogger("monologue.web")


class NotARecording(Exception):
    """The file is not a monologue recording this version can read (the message says why)."""


class RecordingTail:
    """The events appended to one recording since the last :meth:`read`, each with its line
    number. ``after_line`` resumes after a line already delivered (an SSE client's
    ``Last-Event-ID``): the lines up to it are passed over unparsed.

    The file stays open until :meth:`close` (or the end of a ``with`` block).
    """

    def __init__(self, path: Path, after_line: int = 0) -> None:
        if not looks_like_recording(path):
            raise NotARecording(f"{path.name}: not a monologue recording")
        self.path = path
        self._after = after_line
        self._decoder = RecordingDecoder(path)
        self._lines = LineTail(path).__enter__()
        self._pending: deque[tuple[int, bytes]] = deque()
        self._problem: RecordingError | None = None
        try:
            self.header = self._read_header()
        except BaseException:
            self.close()
            raise

    def _read_header(self) -> RecordingHeader:
        self._pending.extend(self._lines.read())
        if not self._pending:
            raise NotARecording(f"{self.path.name}: no complete header line yet")
        lineno, raw = self._pending.popleft()
        try:
            self._decoder.decode(lineno, raw)
        except RecordingError as exc:
            raise NotARecording(str(exc)) from None
        assert self._decoder.header is not None
        return self._decoder.header

    def read(self, limit: int = 512) -> list[tuple[int, Event]]:
        """Up to ``limit`` new events with their line numbers. A line over the readers'
        size limit, or a file that shrank, raises :class:`~monologue.errors.RecordingError`:
        nothing after it can be read."""
        if self._problem is not None:
            raise self._problem
        found: list[tuple[int, Event]] = []
        while len(found) < limit:
            if not self._pending:
                try:
                    if not self._refill():
                        break
                except RecordingError as exc:
                    if not found:
                        raise
                    # The events before the problem first; the problem on the next read.
                    self._problem = exc
                    break
            lineno, raw = self._pending.popleft()
            if lineno <= self._after:
                continue
            try:
                event = self._decoder.decode(lineno, raw)
            except RecordingError as exc:
                log.warning("%s; skipped", exc)
                continue
            if event is not None:
                found.append((lineno, event))
        return found

    def _refill(self) -> bool:
        """Read complete lines; ``False`` at the end of what is written. A line longer than
        one read takes several (each returning no line) before it is complete."""
        while True:
            held = len(self._lines.partial)
            self._pending.extend(self._lines.read())
            if self._pending:
                return True
            if len(self._lines.partial) == held:
                return False

    def close(self) -> None:
        self._lines.__exit__(None, None, None)

    def __enter__(self) -> RecordingTail:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
