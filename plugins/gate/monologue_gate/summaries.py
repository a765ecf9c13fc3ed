"""Rolling summaries: older events compressed into a few lines, stored by content hash.

The summary is computed, not generated (no model): counts of tools, files touched, errors,
and the last things the agent said. The same events always give the same text, hence the
same ``summary_ref`` (``sum-`` and the first 16 hex digits of its SHA-256), so a caller can
tell a changed summary from an unchanged one by its ref alone. Stored summaries live in
``<data_dir>/summaries/<conversation_id>/<ref>.json``.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ValidationError

from monologue.digest import as_text, truncate
from monologue.events import Event
from monologue.redact import redact

REF_PREFIX = "sum-"
FILE_KEYS = ("file_path", "path", "notebook_path")
MAX_FILES = 8
MAX_TEXTS = 2
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_REF = re.compile(rf"{REF_PREFIX}[0-9a-f]{{16}}")


class StoredSummary(BaseModel):
    """One summary file."""

    ref: str
    conversation_id: str
    covers: int
    """How many events the summary compresses."""
    first_event_id: str | None = None
    last_event_id: str | None = None
    text: str


def summary_ref(text: str) -> str:
    """The content-hash reference of a summary text."""
    return REF_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _one_line(text: str, limit: int) -> str:
    return truncate(" ".join(redact(text).split()), limit)


def rolling_summary(events: Sequence[Event]) -> str:
    """A deterministic few-line summary of ``events`` (empty for no events)."""
    if not events:
        return ""
    tools: Counter[str] = Counter()
    files: dict[str, None] = {}
    errors = 0
    last_error = ""
    texts: list[str] = []
    for event in events:
        data = event.data
        if event.type == "tool_call":
            tools[str(data.get("tool_name"))] += 1
            tool_input = data.get("input") or {}
            for key in FILE_KEYS:
                if isinstance(tool_input.get(key), str):
                    files[tool_input[key]] = None
        elif event.type == "error" or (event.type == "tool_result" and data.get("is_error")):
            errors += 1
            last_error = as_text(data.get("message", data.get("output")))
        elif event.type in ("text", "narrative") and data.get("text"):
            texts.append(str(data["text"]))
    first, last = events[0].ts, events[-1].ts
    lines = [f"{len(events)} earlier events, {first:%H:%M:%S} to {last:%H:%M:%S} UTC."]
    if tools:
        ranked = sorted(tools.items(), key=lambda item: (-item[1], item[0]))
        lines.append("Tools: " + ", ".join(f"{name} x{count}" for name, count in ranked) + ".")
    if files:
        names = [_one_line(name, 120) for name in files]
        more = f" (+{len(names) - MAX_FILES} more)" if len(names) > MAX_FILES else ""
        lines.append("Files touched: " + ", ".join(names[:MAX_FILES]) + more + ".")
    if errors:
        lines.append(f"Errors: {errors} (last: {_one_line(last_error, 160)}).")
    for text in texts[-MAX_TEXTS:]:
        lines.append(f"Said: {_one_line(text, 200)}")
    return "\n".join(lines)


def _folder(data_dir: Path, conversation_id: str) -> Path:
    if not isinstance(conversation_id, str) or not _SAFE_ID.fullmatch(conversation_id):
        raise ValueError(
            f"conversation_id {conversation_id!r} cannot name a summary folder: use 1 to 128 "
            "letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    return Path(data_dir) / "summaries" / conversation_id


def persist_summary(
    conversation_id: str, text: str, data_dir: Path, events: Sequence[Event] = ()
) -> str:
    """Store ``text`` for ``conversation_id`` under ``data_dir``; return its ``summary_ref``.

    Content-addressed: storing the same text again writes nothing. ``events`` (the events
    the text compresses) only fills in the file's bookkeeping fields.
    """
    folder = _folder(data_dir, conversation_id)
    ref = summary_ref(text)
    target = folder / f"{ref}.json"
    if target.is_file():
        return ref
    stored = StoredSummary(
        ref=ref,
        conversation_id=conversation_id,
        covers=len(events),
        first_event_id=events[0].id if events else None,
        last_event_id=events[-1].id if events else None,
        text=text,
    )
    folder.mkdir(parents=True, exist_ok=True)
    # Written whole then renamed: a reader never sees half a summary.
    fd, tmp = tempfile.mkstemp(prefix=f".{ref}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(stored.model_dump_json(indent=2) + "\n")
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return ref


def load_summary(conversation_id: str, ref: str, data_dir: Path) -> StoredSummary:
    """Read a stored summary back; errors name the file and what is wrong with it."""
    if not _REF.fullmatch(ref):
        raise ValueError(f"summary ref {ref!r} is not a ref ({REF_PREFIX} and 16 hex digits)")
    path = _folder(data_dir, conversation_id) / f"{ref}.json"
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LookupError(f"{path}: no stored summary {ref}") from None
    try:
        stored = StoredSummary.model_validate_json(raw)
    except ValidationError as exc:
        raise ValueError(f"{path}: not a stored summary: {exc.errors()[0]['msg']}") from None
    if summary_ref(stored.text) != ref:
        raise ValueError(f"{path}: its text does not hash to {ref}; the file was altered")
    return stored
