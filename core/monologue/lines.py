"""Session files a line at a time: the size limits every reader and writer applies, what an
incremental parser (the ``line_parser`` hook, used by ``monologue watch``) looks like,
reading a whole-JSON session file with errors that name the line or the JSON path, and the
line a session's pipeline made of the event it runs, kept for the recorder."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

if TYPE_CHECKING:
    from .events import Event

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "MAX_DOCUMENT_BYTES",
    "MAX_LINE_BYTES",
    "MIN_EVENT_BYTES",
    "SNIFF_BYTES",
    "LineParser",
    "SkippedLines",
    "json_line",
    "json_path",
    "load_json_document",
    "parse_lines",
    "remember_line",
    "remembered_line",
    "skipping_bad_lines",
    "sniff",
]

log = logging.getLogger("monologue.recording")

DEFAULT_MAX_EVENT_BYTES: Final = 1 << 20
"""One recorded event's default size budget (``record_max_event_bytes``)."""
MIN_EVENT_BYTES: Final = 4 << 10
"""Smaller budgets are refused: the event's own fields and the truncation note need room."""
MAX_LINE_BYTES: Final = 8 << 20
"""Readers refuse longer lines: a damaged or hostile file must not make them load a huge line
into memory. Real lines (a tool result with a whole file in it) stay far below."""


# The pipeline serializes each event once, to look for secrets in it before any hook sees
# it; the recorder writes that same line. One slot per thread (each session's pipeline is
# one thread), holding one event: a sink that asks about any other event gets None and
# serializes it itself.
_last_line = threading.local()


def remember_line(event: Event, line: str) -> None:
    """Keep ``line`` as ``event``'s JSON (``model_dump_json``) for this thread."""
    _last_line.value = (event, line)


def remembered_line(event: Event) -> str | None:
    """The line this thread last remembered, if it was made of this very ``event``."""
    last = getattr(_last_line, "value", None)
    return last[1] if last is not None and last[0] is event else None


class LineParser(Protocol):
    """Turns the lines of one growing file into events, keeping what it needs between lines
    (tool names by id, sub-agents, the header)."""

    def feed(self, line: bytes, lineno: int) -> list[Event]:
        """The events of one complete line (without its newline); ``lineno`` is 1-based.
        A bad line raises :class:`~monologue.errors.RecordingError` naming the line."""
        ...


MAX_DOCUMENT_BYTES: Final = 512 << 20
"""Readers of whole-JSON session files (a SWE-agent ``.traj``, an OpenHands event list) refuse
larger files rather than load them into memory."""


def json_path(loc: tuple[str | int, ...] | list[str | int]) -> str:
    """A pydantic error location as a JSON path: ``("trajectory", 3, "action")`` ->
    ``trajectory[3].action`` (``$`` for the document itself)."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "$"


def load_json_document(path: Path, *, max_bytes: int = MAX_DOCUMENT_BYTES) -> Any:
    """The JSON value a whole file holds. A file that cannot be read, is too large, is not
    UTF-8 or not JSON (a truncated file, say) raises
    :class:`~monologue.errors.RecordingError` naming the line and column."""
    from .errors import RecordingError

    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise RecordingError(path, None, f"file is larger than {max_bytes:,} bytes")
        data = path.read_bytes()
    except OSError as exc:
        raise RecordingError(path, None, f"cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise RecordingError(path, line, f"invalid UTF-8 at byte {exc.start}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        problem = f"invalid JSON: {exc.msg} (column {exc.colno})"
        if exc.lineno > text.rstrip().count("\n"):
            problem += "; the document ends here unfinished: is the file truncated?"
        raise RecordingError(path, exc.lineno, problem) from None
    except RecursionError:
        raise RecordingError(path, None, "invalid JSON: nested too deeply") from None


SNIFF_BYTES: Final = 64 * 1024
"""How much of a file readers look at to recognise their format."""

_BOM = b"\xef\xbb\xbf"


def sniff(path: Path, size: int = SNIFF_BYTES) -> bytes:
    """The first bytes of ``path``, without a UTF-8 BOM and leading whitespace, to recognise
    its format by. A file that cannot be read raises
    :class:`~monologue.errors.NotMyFormat` saying why (for ``load_session`` refusals)."""
    from .errors import NotMyFormat

    try:
        with path.open("rb") as handle:
            return handle.read(size).removeprefix(_BOM).lstrip()
    except OSError as exc:
        raise NotMyFormat(f"cannot read: {exc.strerror or exc}") from None


def json_line(path: Path, line: bytes, lineno: int, max_line_bytes: int = MAX_LINE_BYTES) -> Any:
    """One line of a JSON-lines file, decoded (``None`` for a blank line). A line too long
    or not JSON raises :class:`~monologue.errors.RecordingError` naming it."""
    from .errors import RecordingError

    raw = line.rstrip(b"\r\n").removeprefix(_BOM)
    if len(raw) > max_line_bytes:
        raise RecordingError(path, lineno, f"line is longer than {max_line_bytes:,} bytes")
    if not raw.strip():
        return None
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise RecordingError(path, lineno, f"invalid JSON: {exc}") from None
    except RecursionError:
        raise RecordingError(path, lineno, "invalid JSON: nested too deeply") from None


@dataclass
class SkippedLines:
    """How many bad lines :func:`parse_lines` skipped inside :func:`skipping_bad_lines`."""

    count: int = 0


_skipping: ContextVar[SkippedLines | None] = ContextVar("monologue_skipping", default=None)


@contextmanager
def skipping_bad_lines(skip: bool = True) -> Iterator[SkippedLines]:
    """Inside the block (when ``skip``), :func:`parse_lines` skips a line its parser
    refuses, with a warning naming it, and counts it, instead of raising: what ``monologue
    replay`` does without ``--strict``, for every JSON-lines reader. Readers need not know."""
    counter = SkippedLines()
    token = _skipping.set(counter if skip else None)
    try:
        yield counter
    finally:
        _skipping.reset(token)


def parse_lines(
    path: Path, parser: LineParser, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[Event]:
    """Every event of a whole JSON-lines file, fed line by line to ``parser``: the way a
    reader whose format can be followed (``line_parser``) reads it whole too. A line the
    parser refuses raises, or inside :func:`skipping_bad_lines` is skipped and counted."""
    from .errors import RecordingError

    try:
        handle = path.open("rb")
    except OSError as exc:
        raise RecordingError(path, None, f"cannot read: {exc.strerror or exc}") from None
    with handle:
        lineno = 0
        # A line cut at the limit is too long for the parser's size check: the rest of it
        # is never read.
        while line := handle.readline(max_line_bytes + 2):
            lineno += 1
            try:
                events = parser.feed(line, lineno)
            except RecordingError as exc:
                skipped = _skipping.get()
                if skipped is None:
                    raise
                skipped.count += 1
                log.warning("%s; skipped (--strict makes this an error)", exc)
                continue
            yield from events
