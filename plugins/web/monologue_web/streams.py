"""The server-sent event streams: the sessions list, and one session's events.

Each client follows the file itself, at its own pace: the next lines are read only once the
previous ones were sent, so a slow client holds back its own reading, never the server's
memory. Reading, decoding and framing run in worker threads; the event loop only waits for
change notices (:class:`~monologue_web.watch.FolderWatch`) and hands ready-made chunks of
messages to the socket, so a client loading a large recording never stalls the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from collections.abc import AsyncGenerator, AsyncIterator
from pathlib import Path
from typing import Any, Final

from anyio import to_thread

from monologue.errors import RecordingError

from .catalog import SessionCatalog, SessionSummary
from .live import LiveTail, LiveTails
from .present import frame, sse
from .reading import Checkpoint, RecordingLines
from .watch import FolderWatch

__all__ = ["session_events", "session_list"]

# The final narrative is delivered after the completion event: a finished session's stream
# ends only once its file has been still for this long.
_SETTLE_S: Final = 2.0


def _next_chunk(lines: RecordingLines, session_id: str, clip_chars: int) -> tuple[bytes, bool]:
    """The messages of the next events (``b""`` at the end of the file), and whether they
    include the completion. Runs in a worker thread."""
    batch = lines.read()
    completed = any(event["type"] == "completion" for _, _, event in batch)
    return frame(batch, session_id, clip_chars), completed


async def session_events(
    path: Path,
    session_id: str,
    after_line: int,
    *,
    start: Checkpoint | None = None,
    watch: FolderWatch,
    live: LiveTails,
    recheck_s: float,
    clip_chars: int,
) -> AsyncGenerator[bytes]:
    """``header``, then every ``event`` (its id: its line, to resume after), then
    ``caught_up`` once the file's end is reached; then new events as they are appended, and
    ``end`` when the session completed and its file has settled. A recording that cannot be
    read further (a line over the size limit) ends with ``problem``. ``start``: a place of
    the recording's index at or before ``after_line``, to read on from.

    The client reads with its own reader until it has caught up, then from the recording's
    :class:`~monologue_web.live.LiveTail`, shared with every other client caught up.

    The recording is opened before the first message, so a file that is no recording raises
    (:class:`~monologue_web.reading.NotARecording`, :class:`OSError`) from the first
    ``anext``."""
    opened = await to_thread.run_sync(RecordingLines, path, after_line, start)
    lines: RecordingLines | None = opened
    tail: LiveTail | None = None
    sent = after_line
    try:
        yield sse("header", opened.header.model_dump_json().encode())
        caught_up = completed = False
        with watch.notices(path) as changed:
            while True:
                changed.clear()
                try:
                    if lines is not None:
                        chunk, done = await to_thread.run_sync(
                            _next_chunk, lines, session_id, clip_chars
                        )
                        sent, more = lines.position.lineno, bool(chunk)
                    else:
                        assert tail is not None
                        await tail.read_on(tail.reads)
                        if tail.problem is not None:
                            raise tail.problem
                        taken = tail.after(sent)
                        if taken is None:  # fell behind what the tail keeps: read alone
                            live.leave(path, session_id, tail)
                            tail = None
                            lines = await to_thread.run_sync(RecordingLines, path, sent)
                            continue
                        chunk, sent, done = taken
                        more = tail.more
                except RecordingError as exc:
                    yield sse("problem", json.dumps({"message": str(exc)}).encode())
                    return
                completed = completed or done
                if chunk:
                    yield chunk
                if more:
                    continue
                if lines is not None:
                    if not caught_up:
                        caught_up = True
                        yield sse("caught_up", b"{}")
                    # Caught up: on from the shared tail, which may be ahead of this reader.
                    tail = live.join(path, lines, session_id, clip_chars)
                    lines = None
                    continue
                wait = recheck_s
                if completed:
                    try:
                        still = time.time() - path.stat().st_mtime
                    except OSError:  # the recording was removed: nothing more will come
                        still = math.inf
                    if still > _SETTLE_S:
                        yield sse("end", b"{}")
                        return
                    wait = min(wait, _SETTLE_S - still + 0.05)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), wait)
    finally:
        if lines is not None:
            lines.close()
        if tail is not None:
            live.leave(path, session_id, tail)


async def session_list(
    catalog: SessionCatalog, *, watch: FolderWatch, min_gap_s: float, recheck_s: float
) -> AsyncIterator[dict[str, Any]]:
    """A ``session`` message for every session, again whenever its summary changes, and
    ``gone`` when its recording disappears. The folder is read again when a file in it
    changes (at most every ``min_gap_s``), and every ``recheck_s`` regardless, for the
    sessions that go idle."""
    sent: dict[str, SessionSummary] = {}
    with watch.notices(None) as changed:
        while True:
            changed.clear()
            rows = await to_thread.run_sync(catalog.summaries, min_gap_s / 2)
            for row in reversed(rows):
                if sent.get(row.id) != row:
                    sent[row.id] = row
                    yield {"event": "session", "data": row.model_dump_json()}
            for gone in sent.keys() - {row.id for row in rows}:
                del sent[gone]
                yield {"event": "gone", "data": json.dumps({"id": gone})}
            await asyncio.sleep(min_gap_s)
            if all(row.counted for row in rows):
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), recheck_s)
