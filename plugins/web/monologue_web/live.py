"""One reader for every client caught up with a live recording.

Fifty pages open on one running session would otherwise each read, decode and frame every
appended line in a worker thread of their own. Once a client has caught up, it takes its
messages from the recording's :class:`LiveTail` instead: the first client woken by a change
reads it (in a worker thread), every other one takes the same framed messages. The last
:data:`KEPT` messages are kept; a client that falls further behind reads on its own again.
"""

from __future__ import annotations

import asyncio
from collections import deque
from pathlib import Path
from typing import Final, NamedTuple

from anyio import to_thread

from monologue.errors import RecordingError

from .present import present, sse
from .reading import RecordingLines

__all__ = ["KEPT", "LiveTail", "LiveTails"]

KEPT: Final = 4096
"""Messages kept for clients that are a little behind."""
_READ_BYTES: Final = 4 << 20


class _Message(NamedTuple):
    lineno: int
    data: bytes
    completion: bool


class LiveTail:
    """The framed ``event`` messages of one recording, read once for all its clients."""

    def __init__(self, lines: RecordingLines, session_id: str, clip_chars: int) -> None:
        self._lines = lines
        self._session_id = session_id
        self._clip = clip_chars
        self._kept: deque[_Message] = deque()
        self._floor = self.end = lines.position.lineno
        """Every event after line ``_floor`` up to line ``end`` (the last read) is kept."""
        self.reads = 0
        """Reads started so far."""
        self.more = False
        """The last read stopped before the end of what was written."""
        self.problem: RecordingError | None = None
        self._reading = asyncio.Lock()
        self.users = 0

    async def read_on(self, reads_seen: int) -> None:
        """Make sure a read that started after the caller saw ``reads`` at ``reads_seen``
        has been done: the first caller after a change reads, the others find it done."""
        async with self._reading:
            if self.reads > reads_seen or self.problem is not None:
                return
            self.reads += 1
            try:
                messages, self.more = await to_thread.run_sync(self._read)
            except RecordingError as exc:
                self.problem = exc
                return
            self._kept.extend(messages)
            while len(self._kept) > KEPT:
                self._floor = self._kept.popleft().lineno
            self.end = self._lines.position.lineno

    def after(self, lineno: int) -> tuple[bytes, int, bool] | None:
        """The messages after line ``lineno`` as one chunk, the line they end on, and
        whether they include the completion; ``None`` when some are no longer kept."""
        if lineno >= self.end:
            return b"", lineno, False
        if lineno < self._floor:
            return None
        taken = [message for message in self._kept if message.lineno > lineno]
        chunk = b"".join(message.data for message in taken)
        return chunk, self.end, any(message.completion for message in taken)

    def _read(self) -> tuple[list[_Message], bool]:
        """Read, decode and frame what was appended (in a worker thread)."""
        messages: list[_Message] = []
        taken = 0
        while taken < _READ_BYTES:
            batch = self._lines.read()
            if not batch:
                return messages, False
            for lineno, raw, event in batch:
                taken += len(raw)
                data = present(raw, event, self._session_id, self._clip)
                completion = event["type"] == "completion"
                messages.append(_Message(lineno, sse("event", data, str(lineno)), completion))
        return messages, True

    def close(self) -> None:
        self._lines.close()


class LiveTails:
    """The live tails of a server, by recording; each closed when its last client leaves."""

    def __init__(self) -> None:
        self._tails: dict[tuple[Path, str], LiveTail] = {}

    def join(self, path: Path, lines: RecordingLines, session_id: str, clip_chars: int) -> LiveTail:
        """The live tail of ``path``, for a client that has caught up with its own reader
        (``lines``): that reader becomes the tail when there is none yet, else it is closed.
        Call :meth:`leave` when done."""
        key = (path, session_id)
        tail = self._tails.get(key)
        if tail is None:
            tail = self._tails[key] = LiveTail(lines, session_id, clip_chars)
        else:
            lines.close()
        tail.users += 1
        return tail

    def leave(self, path: Path, session_id: str, tail: LiveTail) -> None:
        tail.users -= 1
        if not tail.users:
            if self._tails.get((path, session_id)) is tail:
                del self._tails[path, session_id]
            tail.close()
