"""Reading a Claude Code transcript as it grows: the assistant's text, and the prompts that
no ``UserPromptSubmit`` hook reported (hooks installed mid-session, say).

Hooks carry tool calls and results but never what the assistant says between them; the
transcript at ``transcript_path`` has it. Each read starts where the last one stopped and
takes complete lines only, at most :data:`READ_LIMIT` bytes at a time.
"""

from __future__ import annotations

import json
import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["READ_LIMIT", "TranscriptFollower", "TranscriptText"]

READ_LIMIT = 4 * 1024 * 1024
"""Bytes read from a transcript per payload; the rest waits for the next one."""


@dataclass(frozen=True)
class TranscriptText:
    """One piece of prose from the transcript: ``role`` is ``assistant`` or ``user``."""

    role: str
    text: str


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        block["text"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]


@dataclass
class TranscriptFollower:
    """Follows one transcript file from the offset it was first seen at."""

    path: str
    offset: int = 0
    _seen: deque[str] = field(default_factory=lambda: deque(maxlen=256))
    """Ids of transcript lines already read (Claude Code may rewrite a line)."""

    @classmethod
    def from_end(cls, path: str) -> TranscriptFollower:
        """A follower that skips what the transcript held before the collector saw it."""
        try:
            size = os.path.getsize(path)
        except OSError:
            size = 0
        return cls(path, size)

    def read(self, until: Callable[[bytes, Any], bool] | None = None) -> list[TranscriptText]:
        """The new prose since the last read, up to the end, or with ``until`` up to and
        including the first line for which ``until(raw, parsed)`` is true: the line of the
        payload being handled. A collector catching up on a spool must not read past it;
        when that line is not there (yet, or any more) nothing is read. None either when
        the file is missing or unreadable."""
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                chunk = handle.read(READ_LIMIT)
        except OSError:
            return []
        lines: list[Any] = []
        start = 0
        matched = until is None
        while (end := chunk.find(b"\n", start)) >= 0:
            raw = chunk[start:end]
            start = end + 1
            try:
                lines.append(json.loads(raw))
            except ValueError:
                continue  # a torn or foreign line: the hooks still carry the tool calls
            if until is not None and until(raw, lines[-1]):
                matched = True
                break
        if not matched:
            return []
        self.offset += start
        return [piece for line in lines for piece in self._prose(line)]

    def _prose(self, line: Any) -> list[TranscriptText]:
        if not isinstance(line, dict) or line.get("isSidechain") or line.get("isMeta"):
            return []
        role = line.get("type")
        message = line.get("message")
        if role not in ("user", "assistant") or not isinstance(message, dict):
            return []
        uuid = line.get("uuid")
        if isinstance(uuid, str):
            if uuid in self._seen:
                return []
            self._seen.append(uuid)
        return [
            TranscriptText(role, text) for text in _texts(message.get("content")) if text.strip()
        ]
