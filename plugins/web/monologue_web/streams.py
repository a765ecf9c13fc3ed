"""The server-sent event streams: the sessions list, and one session's events.

Each client follows the file itself, at its own pace: a generator reads the next lines only
once the previous ones were sent, so a slow client holds back its own reading, never the
server's memory.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator
from pathlib import Path
from typing import Any, Final

from monologue.errors import RecordingError

from .catalog import SessionCatalog, SessionSummary
from .present import present
from .tail import RecordingTail

__all__ = ["session_events", "session_list"]

_BATCH: Final = 256
# The final narrative is delivered after the completion event: a finished session's stream
# ends only once its file has been still for this long.
_SETTLE_S: Final = 2.0


async def session_events(
    path: Path, after_line: int, *, poll_s: float, clip_chars: int
) -> AsyncGenerator[dict[str, Any]]:
    """``header``, then every ``event`` (its id: its line, to resume after), then
    ``caught_up`` once the file's end is reached; then new events as they are appended, and
    ``end`` when the session completed and its file has settled. A recording that cannot be
    read further (a line over the size limit) ends with ``problem``."""
    with RecordingTail(path, after_line) as tail:
        yield {"event": "header", "data": tail.header.model_dump_json()}
        caught_up = completed = False
        while True:
            try:
                batch = tail.read(_BATCH)
            except RecordingError as exc:
                yield {"event": "problem", "data": json.dumps({"message": str(exc)})}
                return
            for lineno, event in batch:
                completed = completed or event.type == "completion"
                body = present(event, path.stem, clip_chars)
                yield {"event": "event", "id": str(lineno), "data": json.dumps(body)}
            if len(batch) == _BATCH:
                await asyncio.sleep(0)
                continue
            if not caught_up:
                caught_up = True
                yield {"event": "caught_up", "data": "{}"}
            if not batch and completed and time.time() - path.stat().st_mtime > _SETTLE_S:
                yield {"event": "end", "data": "{}"}
                return
            await asyncio.sleep(poll_s)


async def session_list(catalog: SessionCatalog, *, poll_s: float) -> AsyncIterator[dict[str, Any]]:
    """A ``session`` message for every session, again whenever its summary changes, and
    ``gone`` when its recording disappears."""
    sent: dict[str, SessionSummary] = {}
    while True:
        rows = await asyncio.to_thread(catalog.summaries, poll_s / 2)
        for row in reversed(rows):
            if sent.get(row.id) != row:
                sent[row.id] = row
                yield {"event": "session", "data": row.model_dump_json()}
        for gone in sent.keys() - {row.id for row in rows}:
            del sent[gone]
            yield {"event": "gone", "data": json.dumps({"id": gone})}
        await asyncio.sleep(poll_s)
