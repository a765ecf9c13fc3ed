"""Reading recordings back: the header, then one event a line, with errors that point at it.

Every problem names the file and the 1-based line (:class:`~monologue.errors.RecordingError`)
and is raised *after* the good events before it were produced. One exception: an incomplete
last line (no newline at the end, and not valid JSON) is what a process killed in the middle
of a write leaves behind, so it is skipped with a warning instead.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Final

from pydantic import ValidationError

from monologue.errors import EventValidationError, RecordingError
from monologue.events import Event, describe_validation_error
from monologue.lines import MAX_LINE_BYTES

if TYPE_CHECKING:
    from monologue.events import RecordingHeader

log = logging.getLogger("monologue.recorder")


HEADER_PREFIX: Final = b'{"monologue":'
_HEADER_KEY = re.compile(rb'^\s*\{\s*"monologue"\s*:')


def refuse_long(path: Path, lineno: int, raw: bytes) -> None:
    """Raise for a line cut at ``MAX_LINE_BYTES`` (read with ``readline(MAX_LINE_BYTES + 1)``)
    before its end."""
    if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
        raise RecordingError(path, lineno, line_too_long())


def line_too_long() -> str:
    return f"line is longer than the {MAX_LINE_BYTES >> 20} MiB limit; refusing to read it"


def looks_like_recording(path: Path) -> bool:
    """Whether the file starts with a recording header (reads one line at most)."""
    try:
        with path.open("rb") as stream:
            start = stream.readline(MAX_LINE_BYTES + 1)
    except OSError:
        return False
    return bool(_HEADER_KEY.match(start))


def describe(problem: EventValidationError, what: str = "event") -> str:
    """A line's validation error in a reader's words."""
    text = str(problem).removeprefix("recording header: ")
    if problem.field == "<root>":
        text = text.removeprefix("<root>: ")
        if text.startswith("Invalid JSON: "):
            detail = text.removeprefix("Invalid JSON: ").replace(
                " at line 1 column ", " at column "
            )
            return f"invalid JSON: {detail}"
        if text == "Input should be an object":
            return "expected a JSON object"
    return f"bad {what}: {text}"


def parse_failure(raw: bytes, error: EventValidationError, what: str = "event") -> str:
    """Why a line failed to parse; invalid UTF-8 is told apart from invalid JSON."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
    return describe(error, what)


class RecordingDecoder:
    """Turns the lines of one recording into events, in order; used by the reader and, one
    line at a time as the file grows, by ``monologue watch`` (see :func:`parser_for`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.header: RecordingHeader | None = None
        # The pydantic validator itself: Event.from_json's error wording is only needed when
        # a line is bad, and the layers above the validator cost on every good one.
        self._parse: Callable[[bytes], Event] = Event.__pydantic_validator__.validate_json

    @property
    def agent(self) -> str | None:
        """The recorded session's agent, once the header has been read."""
        return self.header.agent if self.header is not None else None

    def feed(self, line: bytes, lineno: int) -> list[Event]:
        """The events of one complete line (the line-parser protocol ``watch`` follows)."""
        event = self.decode(lineno, line)
        return [] if event is None else [event]

    def decode(self, lineno: int, raw: bytes) -> Event | None:
        """The event on this line; ``None`` for a header or blank line.

        A line without its newline can only be the last of the file: an interrupted write,
        skipped with a warning when it does not parse.
        """
        if self.header is None:
            self.header = self._read_header(lineno, raw)
            return None
        if raw.startswith(HEADER_PREFIX):
            # Another process recorded a session with the same id into this file.
            return None
        try:
            return self._parse(raw)
        except ValidationError as exc:
            if not raw.strip():
                return None
            field, text = describe_validation_error(exc)
            problem = parse_failure(raw, EventValidationError(text, field=field))
        if not raw.endswith(b"\n"):
            log.warning(
                "%s:%d: the last line is incomplete (the recording process was probably "
                "killed while writing it); skipped",
                self.path,
                lineno,
            )
            return None
        raise RecordingError(self.path, lineno, problem)

    def _read_header(self, lineno: int, raw: bytes) -> RecordingHeader:
        from monologue.events import FORMAT_VERSION, RecordingHeader

        try:
            header = RecordingHeader.from_json(raw)
        except EventValidationError as exc:
            problem = parse_failure(raw, exc, "recording header")
            raise RecordingError(self.path, lineno, problem) from None
        if header.monologue > FORMAT_VERSION:
            raise RecordingError(
                self.path,
                lineno,
                f"recording format {header.monologue} is newer than this monologue reads "
                f"(format {FORMAT_VERSION}); upgrade monologue-core and monologue-recorder",
            )
        return header


def read_recording(path: Path) -> Iterator[Event]:
    """Every event of a recording, lazily; problems raise after the events before them."""
    decoder = RecordingDecoder(path)
    try:
        stream = path.open("rb")
    except OSError as exc:
        raise RecordingError(path, None, f"cannot open: {exc.strerror or exc}") from None
    with stream:
        decode = decoder.decode
        readline = stream.readline
        lineno = 0
        while raw := readline(MAX_LINE_BYTES + 1):
            lineno += 1
            if len(raw) > MAX_LINE_BYTES:
                refuse_long(path, lineno, raw)
            event = decode(lineno, raw)
            if event is not None:
                yield event
    if decoder.header is None:
        raise RecordingError(path, None, "empty file: no recording header")


def read_header(path: Path) -> RecordingHeader:
    """The header line of a recording."""
    decoder = RecordingDecoder(path)
    with path.open("rb") as stream:
        raw = stream.readline(MAX_LINE_BYTES + 1)
    refuse_long(path, 1, raw)
    if raw:
        decoder.decode(1, raw)
    if decoder.header is None:
        raise RecordingError(path, None, "empty file: no recording header")
    return decoder.header


def parser_for(path: Path) -> RecordingDecoder | None:
    """A line parser to follow a recording as it grows; ``None`` when it is not one."""
    return RecordingDecoder(path) if looks_like_recording(path) else None
