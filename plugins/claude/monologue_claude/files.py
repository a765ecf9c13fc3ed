"""Recognising Claude files, and reading them lazily into events.

Recognition looks at the first bytes only: the first object of a JSONL file (or the first
element of a JSON array) says which format it is. Reading is line by line, in bytes, so that
a line that is not UTF-8, not JSON, too long or of the wrong shape is reported with its line
number after the events of the lines before it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from monologue.lines import MAX_LINE_BYTES, parse_lines

from .hook_log import HookLogParser
from .parsers import (
    LineParser,
    StreamJsonParser,
    TranscriptParser,
    json_type,
)

if TYPE_CHECKING:
    from monologue.events import Event

    from .standalone import Alone

Format = Literal["claude-code-transcript", "claude-stream-json", "claude-code-hooks"]

SNIFF_BYTES = 64 * 1024
PARSERS: dict[str, type[LineParser]] = {
    TranscriptParser.format: TranscriptParser,
    StreamJsonParser.format: StreamJsonParser,
    HookLogParser.format: HookLogParser,
}
# Line types only a Claude Code transcript has; its other lines carry `sessionId`.
_TRANSCRIPT_TYPES = frozenset({"file-history-snapshot", "summary", "queue-operation", "progress"})
_STREAM_TYPES = frozenset({"system", "assistant", "user", "result", "stream_event"})
_TRANSCRIPT_KEYS = re.compile(rb'"(?:sessionId|parentUuid)"\s*:')
_STREAM_KEYS = re.compile(rb'"(?:session_id|parent_tool_use_id)"\s*:')
_STREAM_TYPE = re.compile(rb'"type"\s*:\s*"(?:system|assistant|user|result)"')
_HOOK_KEYS = re.compile(rb'"hook_event_name"\s*:')
_BOM = b"\xef\xbb\xbf"
_WHITESPACE = re.compile(r"\s*")


def classify(obj: dict[str, Any]) -> Format | None:
    """Which Claude format a first message belongs to, if any."""
    kind = obj.get("type")
    if "hook_event_name" in obj and "session_id" in obj:
        return "claude-code-hooks"
    if "monologue" in obj or not isinstance(kind, str):
        return None  # a monologue recording starts with its {"monologue": N} header
    if "sessionId" in obj or "parentUuid" in obj or kind in _TRANSCRIPT_TYPES:
        return "claude-code-transcript"
    if kind in _STREAM_TYPES and ("session_id" in obj or "parent_tool_use_id" in obj):
        return "claude-stream-json"
    return None


def detect(path: Path) -> tuple[Format, bool] | None:
    """``(format, is_json_array)`` of a Claude file, or ``None`` when it is not one."""
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError:
        return None
    head = head.removeprefix(_BOM).lstrip()
    if head.startswith(b"["):
        first = head[1:].lstrip()
        found = _guess(first, first) if first.startswith(b"{") else None
        return (found, True) if found else None
    if head.startswith(b"{"):
        found = _guess(head, head.split(b"\n", 1)[0])
        return (found, False) if found else None
    return None


def refusal(path: Path) -> str:
    """Why :func:`detect` does not take ``path``, for the "unknown format" error."""
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES).removeprefix(_BOM).lstrip()
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if not head.startswith((b"{", b"[")):
        return f"not JSON lines nor a JSON array (starts with {head[:12]!r})"
    return (
        "its first message has no 'sessionId' / 'parentUuid' (a Claude Code transcript), "
        "no 'session_id' and a stream-json 'type' (claude -p output) and no "
        "'hook_event_name' (Claude Code hook payloads)"
    )


def _guess(text: bytes, first_object: bytes) -> Format | None:
    try:
        obj, _ = json.JSONDecoder().raw_decode(text.decode("utf-8", "replace"))
    except ValueError:
        obj = None
    if isinstance(obj, dict):
        return classify(obj)
    # Damaged, or longer than the sniffed bytes: judge by its keys, so that a file that
    # is a Claude file gets an error naming its bad line rather than "unknown format".
    if first_object.startswith(b'{"monologue"'):
        return None
    if _TRANSCRIPT_KEYS.search(first_object):
        return "claude-code-transcript"
    if _STREAM_KEYS.search(first_object) and _STREAM_TYPE.search(first_object):
        return "claude-stream-json"
    if _HOOK_KEYS.search(first_object):
        return "claude-code-hooks"
    return None


class ClaudeFile:
    """The events of a Claude Code transcript or stream-json file, read when iterated.

    ``agent`` is the main agent's name, the prefix of sub-agents' names
    (``claude/Explore``); a replay may name its session after it. Each iteration reads the
    file again from the start.
    """

    def __init__(
        self,
        path: str | Path,
        format: Format,
        *,
        array: bool = False,
        agent: str = "claude",
        max_line_bytes: int = MAX_LINE_BYTES,
    ) -> None:
        self.path = Path(path)
        self.format = format
        self.array = array
        self.max_line_bytes = max_line_bytes
        self.alone = _alone(self.path, format, array, agent)
        self.agent = self.alone.name if self.alone else agent

    def __repr__(self) -> str:
        shape = "JSON array" if self.array else "JSONL"
        return f"<ClaudeFile {self.format} ({shape}) {self.path}>"

    def parser(self) -> LineParser:
        """A fresh parser for this file's format."""
        parser = PARSERS[self.format](
            self.path, agent=self.agent, max_line_bytes=self.max_line_bytes
        )
        if self.alone is not None and isinstance(parser, TranscriptParser):
            parser.read_alone(self.alone)
        return parser

    def __iter__(self) -> Iterator[Event]:
        """The file's events, then, when it holds no final completion (a transcript never
        does), one saying how the conversation ended (see :meth:`Converter.finish`)."""
        parser = self.parser()
        yield from self._events(parser)
        yield from parser.converter.finish()

    def _events(self, parser: LineParser) -> Iterator[Event]:
        if isinstance(parser, TranscriptParser) and not self.array:
            from .subagents import merged_events, subagent_files

            subagents = subagent_files(self.path)
            if subagents:
                yield from merged_events(self.path, parser, subagents)
                return
        if not self.array:
            yield from parse_lines(self.path, parser, self.max_line_bytes)
            return
        try:
            handle = self.path.open("rb")
        except OSError as exc:
            raise parser.error(None, f"cannot read: {exc.strerror or exc}") from None
        with handle:
            yield from _array_events(handle, parser)


def _array_events(handle: IO[bytes], parser: LineParser) -> Iterator[Event]:
    """The events of a JSON array of messages (``claude -p --output-format json --verbose``,
    or stream-json collected into an array). The array is read whole; each element is
    reported at the line it starts on."""
    data = handle.read().removeprefix(_BOM)
    bad_encoding: Exception | None = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # Read what comes before the bad byte, then report it.
        text = data[: exc.start].decode("utf-8")
        bad = data[exc.start : exc.start + 1]
        bad_encoding = parser.error(
            data.count(b"\n", 0, exc.start) + 1, f"invalid UTF-8: byte {bad!r}"
        )
    decoder = json.JSONDecoder()
    lines = _LineCounter(text)
    pos = _skip(text, 0)
    if not text.startswith("[", pos):
        raise bad_encoding or parser.error(lines.at(pos), "expected a JSON array of messages")
    pos = _skip(text, pos + 1)
    first = True
    while True:
        if pos >= len(text):
            raise bad_encoding or parser.error(
                lines.at(pos), "unexpected end of file: the JSON array is not closed"
            )
        if text[pos] == "]":
            end = _skip(text, pos + 1)
            if end < len(text):
                raise parser.error(lines.at(end), "unexpected data after the JSON array")
            if bad_encoding is not None:
                raise bad_encoding
            return
        if not first:
            if text[pos] != ",":
                raise bad_encoding or parser.error(
                    lines.at(pos), "invalid JSON: expecting ',' between array elements"
                )
            pos = _skip(text, pos + 1)
        try:
            obj, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise bad_encoding or parser.error(
                exc.lineno, f"invalid JSON: {exc.msg} (column {exc.colno})"
            ) from None
        lineno = lines.at(pos)
        parser.check_size(len(text[pos:end].encode()), lineno)
        if not isinstance(obj, dict):
            raise parser.error(lineno, f"expected a JSON object, got {json_type(obj)}")
        yield from parser.feed_object(obj, lineno)
        pos = _skip(text, end)
        first = False


def _skip(text: str, pos: int) -> int:
    match = _WHITESPACE.match(text, pos)
    return match.end() if match else pos


class _LineCounter:
    """Line numbers of increasing offsets, counted incrementally."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1

    def at(self, pos: int) -> int:
        if pos < self.pos:
            return self.text.count("\n", 0, pos) + 1
        self.line += self.text.count("\n", self.pos, pos)
        self.pos = pos
        return self.line


def _alone(path: Path, format: Format, array: bool, agent: str) -> Alone | None:
    """A sub-agent's transcript read on its own (see :mod:`monologue_claude.standalone`)."""
    if format != TranscriptParser.format or array:
        return None
    from .standalone import read_alone

    return read_alone(path, agent)


def read_session(path: str | Path, *, agent: str = "claude") -> ClaudeFile:
    """The events of a Claude Code transcript or stream-json file (JSONL or JSON array).

    Raises :class:`~monologue.errors.RecordingError` when the file cannot be read or is in
    neither format; problems inside the file are raised while iterating, after the events
    of the lines before them.
    """
    from monologue.errors import RecordingError

    path = Path(path)
    if not path.is_file():
        problem = "is a directory, not a file" if path.is_dir() else "no such file"
        raise RecordingError(path, None, problem)
    found = detect(path)
    if found is None:
        raise RecordingError(
            path, None, "not a Claude Code transcript nor stream-json output (unknown format)"
        )
    return ClaudeFile(path, found[0], array=found[1], agent=agent)


def parser_for(path: str | Path, *, agent: str = "claude") -> LineParser | None:
    """A line parser for a JSONL Claude file, to follow it as it grows; ``None`` when the
    file is not one (or not yet: an empty file has no first line to recognise)."""
    found = detect(Path(path))
    if found is None or found[1]:
        return None
    return ClaudeFile(path, found[0], agent=agent).parser()
