"""``monologue sessions``: what the record directory holds, most recently written first.

Only the recordings shown are read through (each streamed, never loaded whole) to count
their events and narratives, find their title (the first prompt, else the task) and how
they ended.
"""

from __future__ import annotations

import logging
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from monologue.errors import RecordingError

if TYPE_CHECKING:
    from monologue.events import RecordingHeader

__all__ = ["SessionRow", "list_sessions"]

TITLE_WIDTH = 60
_PROMPT_ORIGINS = frozenset({None, "user"})


class SessionRow(BaseModel):
    """One recorded session, as ``monologue sessions --json`` prints it."""

    id: str
    title: str
    """The first prompt (or the task), on one line and shortened."""
    agent: str
    source: str
    """``live`` for a session recorded as it ran, else the format its replay read."""
    started_at: datetime | None
    """``None`` when the source recorded no times."""
    events: int
    narratives: int
    duration_s: float | None
    status: str
    """How it ended (``completed``, ``failed``, ``interrupted``, ``cut_off``), or
    ``running`` while nothing says it ended."""
    skipped_lines: int
    path: str


def _shorten(text: str, width: int = TITLE_WIDTH) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _title_of(event_type: str, data: dict[str, Any]) -> str | None:
    if event_type == "user_message" and data.get("origin") in _PROMPT_ORIGINS:
        return str(data.get("text", "")) or None
    return None


def _row(path: Path, header: RecordingHeader) -> SessionRow:
    from monologue.recording import read_recording
    from monologue.replay._replay import NARRATION_TYPES

    reader = read_recording(path)
    events = narratives = 0
    title: str | None = None
    first = last = None
    status = "running"
    for event in reader:
        kind = event.type
        if kind == "narrative":
            narratives += 1
            continue
        if kind in NARRATION_TYPES:
            continue
        events += 1
        if title is None:
            title = _title_of(kind, event.data)
        if kind == "completion":
            failed = event.data.get("is_error")
            status = str(event.data.get("ending") or ("failed" if failed else "completed"))
            continue
        first = first or event.ts
        last = event.ts
    meta = header.meta
    untimed = bool(meta.get("untimed"))
    task = (header.model_extra or {}).get("task_id")
    return SessionRow(
        id=header.session_id,
        title=_shorten(title or str(task or "")) or "(no prompt)",
        agent=header.agent,
        source=str(meta.get("source_format") or ("replay" if "replay_of" in meta else "live")),
        started_at=None if untimed else header.started_at,
        events=events,
        narratives=narratives,
        duration_s=None
        if untimed or first is None or last is None
        else round((last - first).total_seconds(), 3),
        status=status,
        skipped_lines=reader.skipped,
        path=str(path),
    )


def list_sessions(folder: Path, limit: int | None = None) -> list[SessionRow]:
    """The recordings in ``folder``, the most recently written first, at most ``limit``.
    A file that is not a recording is left out with a warning naming it."""
    from monologue.recording import read_header

    log = logging.getLogger("monologue.recording")
    paths = sorted(folder.glob("*.jsonl") if folder.is_dir() else (), key=_modified, reverse=True)
    rows: list[SessionRow] = []
    for path in paths:
        if limit is not None and len(rows) >= limit:
            break
        try:
            header = read_header(path)
        except (RecordingError, OSError) as exc:
            log.warning("%s: not listed: %s", path, getattr(exc, "problem", exc))
            continue
        quiet = log.level
        log.setLevel(logging.ERROR)  # a bad line is counted in the row, not warned about
        try:
            rows.append(_row(path, header))
        finally:
            log.setLevel(quiet)
    return rows


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
