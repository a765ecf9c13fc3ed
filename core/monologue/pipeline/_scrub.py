"""Redaction of the events a session's pipeline takes, a batch at a time, before any hook or
sink sees them.

Each event is serialized once, here: the recorder writes that same line
(:func:`~monologue.lines.remember_line`). The secrets pre-check reads the payload's part of
each line, all of a batch's lines in one search (:func:`~monologue.redact.secret_suspects`);
only the events it suspects are checked and redacted one by one (:meth:`Event.redacted`).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

import orjson

from monologue.events import Event
from monologue.redact import secret_suspects

__all__ = ["event_json", "scrub"]

_SERIALIZER = Event.__pydantic_serializer__
_ALREADY_REDACTED = attrgetter("already_redacted")


def event_json(event: Event) -> str | None:
    """``event.model_dump_json()``, or ``None`` for an event JSON cannot hold.

    A plain event (no subclass, no extra fields) is written by orjson from its fields, in
    their declared order: the same line (``tests/test_scrub.py`` holds them to it), in about
    a third of the time. A value orjson does not know (a set, bytes, a model) goes through
    pydantic, as before."""
    if type(event) is Event and not event.__pydantic_extra__:
        try:
            return orjson.dumps(vars(event), option=orjson.OPT_UTC_Z).decode()
        except TypeError:  # orjson.JSONEncodeError: a type it does not serialize
            pass
    try:
        return _SERIALIZER.to_json(event).decode()
    except ValueError:
        return None


def scrub(events: Sequence[Event]) -> list[tuple[Event, str | None]]:
    """Each event with the secrets in its payload redacted (the event itself when it has
    none), and its JSON line when that is the line of the event returned (``None`` when
    redaction made a copy, or JSON cannot hold the event: the recorder then makes the line
    safe itself). Events :attr:`~Event.already_redacted` (read from a recording redacted
    under the rules in effect, a replay's) are returned as they are, without a line (a
    recorder makes its own), when the whole batch is."""
    if all(map(_ALREADY_REDACTED, events)):
        return [(event, None) for event in events]
    lines = [event_json(event) for event in events]
    payloads = [
        repr(event.data) if line is None else line[line.find(',"data":') :]
        for event, line in zip(events, lines, strict=True)
    ]
    suspects = secret_suspects(payloads)
    scrubbed = list(zip(events, lines, strict=True))
    for i in suspects:
        event, line = scrubbed[i]
        clean = event.redacted(line)
        if clean is not event:
            scrubbed[i] = (clean, None)
    return scrubbed
