"""Recognising OpenHands event streams by their content, and reading them.

Two layouts: a JSON array of events (a saved trajectory), read whole, and one event per line
(JSONL), which is appended to as the agent runs and so can be followed with
:class:`EventLineParser` (``monologue watch``). Problems name the file and the array index
(``$[3]``) or the line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from monologue.errors import NotMyFormat, RecordingError
from monologue.events import Event
from monologue.lines import (
    MAX_LINE_BYTES,
    json_line,
    json_path,
    load_json_document,
    parse_lines,
    sniff,
)

from .convert import Converter
from .shapes import OpenHandsEvent

__all__ = ["EventLineParser", "Layout", "OpenHandsFile", "detect", "read_session"]

Layout = Literal["array", "lines"]

_KEYS = re.compile(rb'"(?:action|observation)"\s*:\s*"')
_SOURCE = re.compile(rb'"source"\s*:\s*"(?:user|agent|environment)"')


def detect(path: Path) -> Layout:
    """The layout of an OpenHands event file; :class:`NotMyFormat` says why it is not one."""
    head = sniff(path)
    if head.startswith(b"["):
        first = head[1:].lstrip()
        layout: Layout = "array"
    elif head.startswith(b"{"):
        first, layout = head.split(b"\n", 1)[0], "lines"
    else:
        raise NotMyFormat(f"not JSON (starts with {head[:12]!r})")
    if not first.startswith(b"{"):
        raise NotMyFormat("not a list of event objects")
    if not (_KEYS.search(first[:4096]) and _SOURCE.search(first[:4096])):
        raise NotMyFormat("its first object has no 'source' and 'action' / 'observation'")
    return layout


class EventLineParser:
    """Follows a JSONL OpenHands event file line by line (the ``line_parser`` hook)."""

    def __init__(self, path: str | Path, *, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.path = Path(path)
        self.max_line_bytes = max_line_bytes
        self._converter = Converter()

    def feed(self, line: bytes, lineno: int) -> list[Event]:
        obj = json_line(self.path, line, lineno, self.max_line_bytes)
        return [] if obj is None else self.feed_object(obj, lineno=lineno)

    def finish(self) -> list[Event]:
        """How the stream ended, when it said nothing of it (see ``Converter.finish``)."""
        return self._converter.finish()

    def feed_object(self, obj: Any, *, lineno: int | None = None, index: int = 0) -> list[Event]:
        """The events of one decoded OpenHands event (from a line, or ``$[index]``)."""
        try:
            item = OpenHandsEvent.model_validate(obj)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            at: list[str | int] = ["$"] if lineno is not None else ["$", index]
            where = json_path([*at, *first["loc"]])
            problem = f"not an OpenHands event: at {where}: {first['msg']}"
            raise RecordingError(self.path, lineno, problem) from None
        return self._converter.convert(item)


class OpenHandsFile:
    """The events of an OpenHands event file, read when iterated; ``agent`` names the
    replayed session."""

    agent = "openhands"

    def __init__(self, path: str | Path, layout: Layout) -> None:
        self.path = Path(path)
        self.layout = layout

    def __repr__(self) -> str:
        return f"<OpenHandsFile {self.layout} {self.path}>"

    def __iter__(self) -> Iterator[Event]:
        parser = EventLineParser(self.path)
        if self.layout == "lines":
            yield from parse_lines(self.path, parser, parser.max_line_bytes)
            yield from parser.finish()
            return
        document = load_json_document(self.path)
        if not isinstance(document, list):
            raise RecordingError(self.path, None, "expected a JSON array of OpenHands events")
        for index, obj in enumerate(document):
            yield from parser.feed_object(obj, index=index)
        yield from parser.finish()


def read_session(path: str | Path) -> OpenHandsFile:
    """The events of an OpenHands event file (JSON array or JSONL).

    Raises :class:`~monologue.errors.RecordingError` when it is not one (saying why);
    problems inside the file are raised while iterating, after the events before them.
    """
    path = Path(path)
    try:
        return OpenHandsFile(path, detect(path))
    except NotMyFormat as exc:
        raise RecordingError(path, None, f"not an OpenHands event stream: {exc.reason}") from None
