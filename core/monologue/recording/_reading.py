"""Reading monologue recordings: the decoder of one line at a time and the reader of a whole
file. Public through :mod:`monologue.recording`, which documents the rules (a bad line is
skipped with a warning naming it, or raised when strict)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Final

import orjson

from monologue.errors import EventValidationError, RecordingError
from monologue.lines import MAX_LINE_BYTES

from ._rules import redaction_rules
from ._tail import line_too_long

if TYPE_CHECKING:
    from monologue.events import Event, RecordingHeader

__all__ = [
    "HEADER_PREFIX",
    "RecordingDecoder",
    "RecordingReader",
    "looks_like_recording",
    "read_header",
    "read_recording",
]

log = logging.getLogger("monologue.recording")

HEADER_PREFIX: Final = b'{"monologue":'
_HEADER_KEY = re.compile(rb'^\s*\{\s*"monologue"\s*:')
_STRICT_HINT: Final = "; skipped (--strict makes this an error)"


def looks_like_recording(path: Path) -> bool:
    """Whether the file starts with a recording header (reads one line at most)."""
    try:
        with path.open("rb") as stream:
            start = stream.readline(MAX_LINE_BYTES + 1)
    except OSError:
        return False
    return bool(_HEADER_KEY.match(start))


def _describe(problem: EventValidationError, what: str) -> str:
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


def _parse_failure(raw: bytes, error: EventValidationError, what: str = "event") -> str:
    """Why a line failed to parse; invalid UTF-8 is told apart from invalid JSON."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
    return _describe(error, what)


_FIELDS: Final = frozenset(
    {"id", "ts", "session_id", "agent", "task_id", "type", "visibility", "data"}
)
_FIELD_COUNT: Final = len(_FIELDS)
_VISIBLE: Final = frozenset({"internal", "system"})


def _required_keys(kind: str) -> frozenset[str]:
    """The keys a payload of type ``kind`` cannot do without (none for an unknown type)."""
    from monologue.events import PAYLOADS

    model = PAYLOADS.get(kind)
    if model is None:
        return frozenset()
    return frozenset(name for name, info in model.model_fields.items() if info.is_required())


def _constructor(event_class: type[Event], redacted: bool) -> Callable[[bytes], Event | None]:
    """Builds the event a recording's line holds without validation; ``None`` when the line
    does not have the shape a recorder writes (then the validator decides, and says why).
    ``redacted``: the recording's header says its lines were redacted under the rules in
    effect, and its events are marked so (:meth:`Event.recorded`).

    A recorder writes validated events, so re-validating every payload on the way back costs
    most of a replay and finds nothing. What is checked is what a damaged or hand-edited
    line could get wrong and what the pipeline relies on: JSON, an object, the field types,
    an aware time, the payload's required keys, and who may see the event.
    """
    loads, parse_ts = orjson.loads, datetime.fromisoformat
    recorded = event_class.recorded(redacted=redacted)
    required: dict[str, frozenset[str]] = {}  # by type, filled as types appear

    def construct(line: bytes) -> Event | None:
        try:
            obj = loads(line)
            if len(obj) != _FIELD_COUNT:
                return None  # a key left out or one added: not a line a recorder writes
            # Each of the eight read: with one missing, another key stands in its place.
            event_id, ts, session_id, agent = obj["id"], obj["ts"], obj["session_id"], obj["agent"]
            task_id, kind, visibility, data = (
                obj["task_id"],
                obj["type"],
                obj["visibility"],
                obj["data"],
            )
            ts = obj["ts"] = parse_ts(ts)
            needed = required.get(kind)
            if needed is None:
                needed = required[kind] = _required_keys(kind)
        except (ValueError, KeyError, TypeError, AttributeError):  # orjson's error is a ValueError
            return None
        if not (
            ts.tzinfo is not None
            and type(event_id) is str
            and type(kind) is str
            and type(data) is dict
            and type(session_id) is str
            and type(agent) is str
            and (task_id is None or type(task_id) is str)
            and (visibility in _VISIBLE or (visibility == "user" and kind == "narrative"))
            and data.keys() >= needed
        ):
            return None
        return recorded(obj)  # the parsed object becomes the event's fields

    return construct


def _event_failure(raw: bytes, exc: ValueError) -> str:
    from pydantic import ValidationError

    from monologue.events import describe_validation_error

    if not isinstance(exc, ValidationError):
        raise exc
    field, text = describe_validation_error(exc)
    return _parse_failure(raw, EventValidationError(text, field=field))


class RecordingDecoder:
    """Turns the lines of one recording into events, in order; used by the reader and, one
    line at a time as the file grows, by ``monologue watch`` (see ``parser_for``).

    ``strict`` (the default, for callers that handle the error themselves) raises
    :class:`~monologue.errors.RecordingError` for a bad event line; otherwise the line is
    skipped with a warning and counted in :attr:`skipped`. A bad header always raises:
    nothing after it can be trusted. ``name`` is how messages call the file (``path`` by
    default; ``<stdin>`` for a stream read through a temporary copy, say).
    """

    def __init__(self, path: Path, *, strict: bool = True, name: str | None = None) -> None:
        from monologue.events import Event

        self.path = path
        self.name = name or str(path)
        self.strict = strict
        self.skipped = 0
        """Bad lines skipped so far (never counts when strict)."""
        self.header: RecordingHeader | None = None
        self.redacted = False
        """Whether every header read so far says the lines were redacted under the rules in
        effect (:func:`redaction_rules`): then the events are read as already redacted."""
        self.construct = _constructor(Event, redacted=False)
        """The event a recorder's line holds, unvalidated; ``None`` for any other line."""
        # The pydantic validator itself, for a line the fast path does not take: its error
        # wording names the field, and Event.from_json's layers above it cost on every line.
        self._validate: Callable[[bytes], Event] = Event.__pydantic_validator__.validate_json

    @property
    def agent(self) -> str | None:
        """The recorded session's agent, once the header has been read."""
        return self.header.agent if self.header is not None else None

    def feed(self, line: bytes, lineno: int) -> list[Event]:
        """The events of one complete line (the line-parser protocol ``watch`` follows)."""
        event = self.decode(lineno, line)
        return [] if event is None else [event]

    def bad_line(self, lineno: int, problem: str) -> None:
        """Line ``lineno`` cannot be read: raise when strict, else warn and count it."""
        if self.strict:
            raise RecordingError(self.name, lineno, problem)
        self.skipped += 1
        log.warning("%s:%d: %s%s", self.name, lineno, problem, _STRICT_HINT)

    def decode(self, lineno: int, raw: bytes) -> Event | None:
        """The event on this line; ``None`` for a header, a blank or a skipped line.

        A line without its newline can only be the last of the file: an interrupted write,
        skipped with a warning when it does not parse.
        """
        if self.header is None:
            self.header = self._read_header(lineno, raw)
            self._trust(self.header)
            return None
        if raw.startswith(HEADER_PREFIX):
            # Another process recorded a session with the same id into this file; its lines
            # are read as redacted only if it used the same rules too.
            if self.redacted:
                from monologue.events import RecordingHeader

                try:
                    self._trust(RecordingHeader.from_json(raw))
                except EventValidationError:
                    self._trust(None)
            return None
        event = self.construct(raw)
        if event is not None:
            return event
        try:
            return self._validate(raw)
        except ValueError as exc:  # pydantic's ValidationError, imported only when a line is bad
            if not raw.strip():
                return None
            problem = _event_failure(raw, exc)
        if not raw.endswith(b"\n"):
            # Not an error even when strict: a killed recorder leaves one, by design (the
            # SIGKILL window); counted with the bad lines all the same, as it is one left out.
            self.skipped += 1
            log.warning(
                "%s:%d: the last line is incomplete (the recording process was probably "
                "killed while writing it); skipped",
                self.name,
                lineno,
            )
            return None
        self.bad_line(lineno, problem)
        return None

    def _trust(self, header: RecordingHeader | None) -> None:
        """Read the next events as already redacted while every header says so."""
        extra = (header.model_extra or {}) if header is not None else {}
        trusted = extra.get("redaction") == redaction_rules()
        if trusted != self.redacted:
            from monologue.events import Event

            self.redacted = trusted
            self.construct = _constructor(Event, redacted=trusted)

    def _read_header(self, lineno: int, raw: bytes) -> RecordingHeader:
        from monologue.events import FORMAT_VERSION, RecordingHeader

        try:
            header = RecordingHeader.from_json(raw)
        except EventValidationError as exc:
            problem = _parse_failure(raw, exc, "recording header")
            raise RecordingError(self.name, lineno, problem) from None
        if header.monologue > FORMAT_VERSION:
            raise RecordingError(
                self.name,
                lineno,
                f"recording format {header.monologue} is newer than this monologue reads "
                f"(format {FORMAT_VERSION}); upgrade monologue-core",
            )
        return header


def _no_event(line: bytes) -> None:
    """The fast path before the header is read: nothing."""


def _skip_rest_of_line(stream: IO[bytes]) -> None:
    """Read past the end of a line longer than any reader keeps in memory."""
    while chunk := stream.readline(MAX_LINE_BYTES + 1):
        if chunk.endswith(b"\n"):
            return


class RecordingReader:
    """Every event of a recording, lazily (iterate it once); :attr:`skipped` counts the bad
    lines passed over, :attr:`agent` names the session once its header is read."""

    def __init__(self, path: Path, *, strict: bool = False, name: str | None = None) -> None:
        self.path = path
        self._decoder = RecordingDecoder(path, strict=strict, name=name)
        self._stream: IO[bytes] | None = None

    def position(self) -> int:
        """How many bytes of the file have been read (for a progress bar)."""
        stream = self._stream
        return stream.tell() if stream is not None and not stream.closed else 0

    @property
    def skipped(self) -> int:
        return self._decoder.skipped

    @property
    def agent(self) -> str | None:
        return self._decoder.agent

    def __iter__(self) -> Iterator[Event]:
        decoder = self._decoder
        try:
            stream = self.path.open("rb")
        except OSError as exc:
            problem = f"cannot open: {exc.strerror or exc}"
            raise RecordingError(decoder.name, None, problem) from None
        self._stream = stream
        with stream:
            decode = decoder.decode
            construct: Callable[[bytes], Event | None] = _no_event
            readline = stream.readline
            lineno = 0
            while raw := readline(MAX_LINE_BYTES + 1):
                lineno += 1
                if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                    decoder.bad_line(lineno, line_too_long())
                    _skip_rest_of_line(stream)
                    continue
                # The common line, a recorded event, straight to the fast path; a header, a
                # blank or a bad line through decode, which tells them apart (and, reading a
                # header, decides how the next lines are built).
                event = construct(raw)
                if event is None:
                    event = decode(lineno, raw)
                    construct = decoder.construct
                if event is not None:
                    yield event
        if decoder.header is None:
            raise RecordingError(decoder.name, None, "empty file: no recording header")


def read_recording(path: Path, *, strict: bool = False) -> RecordingReader:
    """Every event of a recording, lazily. Bad lines are skipped with a warning; with
    ``strict`` the first raises, after the events before it were produced."""
    return RecordingReader(path, strict=strict)


def read_header(path: Path) -> RecordingHeader:
    """The header line of a recording."""
    decoder = RecordingDecoder(path)
    with path.open("rb") as stream:
        raw = stream.readline(MAX_LINE_BYTES + 1)
    if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
        raise RecordingError(path, 1, line_too_long())
    if raw:
        decoder.decode(1, raw)
    if decoder.header is None:
        raise RecordingError(path, None, "empty file: no recording header")
    return decoder.header
