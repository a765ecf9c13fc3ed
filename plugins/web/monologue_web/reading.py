"""Reading recordings for the viewer: regular files only, raw lines, cheap per event.

The record folder may hold anything a user or another program put there: a FIFO (opening it
would block until a writer comes), a socket, a device node, a symlink to a recording
elsewhere. Only regular files are listed or opened: :func:`recording_file` checks with
``lstat`` and follows a symlink only when it resolves inside the folder, and
:func:`open_regular` opens non-blocking and checks the open file again, so a file swapped
in between is refused too.

Events are the project's own lines, validated when they were recorded: the viewer only
decodes each line's JSON (no model validation), and sends a line as recorded when it is
short enough to need no clipping. The header is validated, since everything after it
depends on it. All of this runs in worker threads, never on the server's event loop.
"""

from __future__ import annotations

import json
import logging
import mmap
import os
import stat
from collections import deque
from pathlib import Path
from typing import IO, Any, Final, NamedTuple

from monologue.errors import EventValidationError, RecordingError
from monologue.events import FORMAT_VERSION, RecordingHeader
from monologue.lines import MAX_LINE_BYTES
from monologue.recording import HEADER_PREFIX, LineTail

__all__ = [
    "Checkpoint",
    "NotARecording",
    "RawEvent",
    "RecordingLines",
    "find_event",
    "open_regular",
    "recording_file",
]

log = logging.getLogger("monologue.web")

RawEvent = tuple[int, bytes, dict[str, Any]]
"""An event line: its number, its bytes as recorded (newline included), its decoded JSON."""

_READ_BYTES: Final = 1 << 18


class Checkpoint(NamedTuple):
    """A place in a recording to read on from: after line ``lineno``, at byte ``offset``."""

    lineno: int
    offset: int


class NotARecording(Exception):
    """The file is not a monologue recording this version can read (the message says why)."""


def recording_file(folder: Path, name: str) -> Path | None:
    """``folder/name`` as the regular file to open, or ``None``. ``folder`` must be resolved.

    A symlink is followed only when its target is a regular file inside ``folder``; the
    target's path is returned. Nothing is opened, so a FIFO or device costs one ``lstat``.
    """
    path = folder / name
    try:
        mode = path.lstat().st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return path
    if not stat.S_ISLNK(mode):
        return None
    try:
        target = path.resolve(strict=True)
        regular = stat.S_ISREG(target.stat().st_mode)
    except (OSError, RuntimeError):  # dangling, or a loop
        return None
    return target if regular and target.is_relative_to(folder) else None


def open_regular(path: Path) -> IO[bytes]:
    """``path`` opened for reading, without blocking; :class:`NotARecording` unless it is a
    regular file once open."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotARecording(f"{path.name}: not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


class _RegularTail(LineTail):
    """The core's :class:`~monologue.recording.LineTail`, opening only regular files, from
    a checkpoint when one is given."""

    def __init__(self, path: Path, start: Checkpoint | None) -> None:
        super().__init__(path)
        self._start = start

    def __enter__(self) -> _RegularTail:
        self._stream = open_regular(self.path)
        if self._start is not None:
            self._stream.seek(self._start.offset)
            self.lineno = self._start.lineno
        return self


def _read_header(path: Path) -> RecordingHeader:
    with open_regular(path) as stream:
        raw = stream.readline(MAX_LINE_BYTES + 1)
    if not raw.startswith(HEADER_PREFIX) or not raw.endswith(b"\n"):
        raise NotARecording(f"{path.name}: no recording header")
    try:
        header = RecordingHeader.from_json(raw)
    except EventValidationError as exc:
        raise NotARecording(f"{path.name}: bad {exc}") from None
    if header.monologue > FORMAT_VERSION:
        raise NotARecording(f"{path.name}: recording format {header.monologue} is newer")
    return header


class RecordingLines:
    """The header of one recording, then its event lines as they are appended.

    ``after_line`` resumes after a line already delivered (an SSE client's
    ``Last-Event-ID``): the lines up to it are passed over undecoded, and with ``start`` (a
    :class:`Checkpoint` at or before that line, from the catalog's index) not even read.
    The file stays open until
    :meth:`close` (or the end of a ``with`` block).
    """

    def __init__(self, path: Path, after_line: int = 0, start: Checkpoint | None = None) -> None:
        self.path = path
        self.header = _read_header(path)
        self._after = after_line
        self._done, self._offset = start or Checkpoint(0, 0)
        self._lines = _RegularTail(path, start).__enter__()
        self._pending: deque[tuple[int, bytes]] = deque()
        self._problem: RecordingError | None = None

    @property
    def position(self) -> Checkpoint:
        """Where the lines read so far end."""
        return Checkpoint(self._done, self._offset)

    def read(self, max_bytes: int = _READ_BYTES) -> list[RawEvent]:
        """The next events, about ``max_bytes`` of lines (more when they hold no event);
        ``[]`` only at the end of what is written. A line over the readers' size limit, or a
        file that shrank, raises :class:`~monologue.errors.RecordingError` once the events
        before it were returned: nothing after it can be read."""
        if self._problem is not None:
            raise self._problem
        found: list[RawEvent] = []
        taken = 0
        while taken < max_bytes or not found:
            if not self._pending:
                try:
                    if not self._refill():
                        break
                except RecordingError as exc:
                    if not found:
                        raise
                    self._problem = exc
                    break
            lineno, raw = self._pending.popleft()
            taken += len(raw)
            self._done, self._offset = lineno, self._offset + len(raw)
            if lineno <= self._after or raw.startswith(HEADER_PREFIX):
                # Passed over; or the header, or another process's for the same session id.
                continue
            event = _decode(self.path, lineno, raw)
            if event is not None:
                found.append((lineno, raw, event))
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

    def __enter__(self) -> RecordingLines:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _decode(path: Path, lineno: int, raw: bytes) -> dict[str, Any] | None:
    """The event on a line, or ``None`` (with a warning) when the line is no event: a viewer
    goes on showing the rest of the session."""
    try:
        event = json.loads(raw)
    except ValueError:
        event = None
    if (
        isinstance(event, dict)
        and isinstance(event.get("id"), str)
        and isinstance(event.get("type"), str)
        and isinstance(event.get("data"), dict)
    ):
        return event
    if raw.strip():
        log.warning("%s:%d: not a recorded event; skipped", path, lineno)
    return None


def find_event(path: Path, event_id: str) -> dict[str, Any] | None:
    """The recorded event ``event_id`` of a recording, or ``None``.

    The file is searched as bytes for the event's id, as the recorder writes it, and only
    the line that holds it is decoded: a large recording is never parsed whole for one event.
    """
    with open_regular(path) as stream:
        if os.fstat(stream.fileno()).st_size == 0:
            raise NotARecording(f"{path.name}: empty")
        with mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as view:
            if not view[: len(HEADER_PREFIX)] == HEADER_PREFIX:
                raise NotARecording(f"{path.name}: no recording header")
            needle = b'"id":' + json.dumps(event_id).encode()
            at = view.find(needle)
            while at >= 0:
                start = view.rfind(b"\n", 0, at) + 1
                end = view.find(b"\n", at)
                if end < 0:  # a line still being written
                    return None
                event = _decode(path, 0, view[start:end])
                if event is not None and event["id"] == event_id:
                    return event
                at = view.find(needle, end)
    return None
