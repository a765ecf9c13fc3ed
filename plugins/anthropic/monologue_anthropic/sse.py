"""Server-sent events, as the Messages API streams them: ``event:`` / ``data:`` lines, a blank
line ending each event (https://html.spec.whatwg.org/multipage/server-sent-events.html)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class ServerSentEvent:
    name: str
    """The ``event:`` field; ``message`` when absent, as the standard says."""
    data: str
    """The ``data:`` lines joined with newlines."""
    line: int
    """1-based line of the event's first ``data:`` line, for error messages."""


def parse_sse(lines: Iterable[str], first_line: int = 1) -> Iterator[ServerSentEvent]:
    """The events in ``lines`` (each with or without its newline). Comments (``:``), ``id:``
    and ``retry:`` fields are skipped; an event without data is not dispatched."""
    name = ""
    data: list[str] = []
    start = 0
    number = first_line - 1
    for number, raw in enumerate(lines, first_line):
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                yield ServerSentEvent(name or "message", "\n".join(data), start)
            name, data, start = "", [], 0
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            name = value
        elif field == "data":
            start = start or number
            data.append(value)
    if data:
        yield ServerSentEvent(name or "message", "\n".join(data), start or number)
