"""Reading session files a line at a time: the size limit every reader applies, and what an
incremental parser (the ``line_parser`` hook, used by ``monologue watch``) looks like."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Protocol

if TYPE_CHECKING:
    from .events import Event

MAX_LINE_BYTES: Final = 8 << 20
"""Readers refuse longer lines: a damaged or hostile file must not make them load a huge line
into memory. Real lines (a tool result with a whole file in it) stay far below."""


class LineParser(Protocol):
    """Turns the lines of one growing file into events, keeping what it needs between lines
    (tool names by id, sub-agents, the header)."""

    def feed(self, line: bytes, lineno: int) -> list[Event]:
        """The events of one complete line (without its newline); ``lineno`` is 1-based.
        A bad line raises :class:`~monologue.errors.RecordingError` naming the line."""
        ...
