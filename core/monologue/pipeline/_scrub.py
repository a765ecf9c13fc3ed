"""Redaction of the events a session's pipeline takes, a batch at a time, before any hook or
sink sees them.

Each event is serialized once, here (:meth:`Event.to_json`): the recorder writes that same line
(:func:`~monologue.lines.remember_line`). The secrets pre-check reads the payload's part of
each line, all of a batch's lines in one search (:func:`~monologue.redact.secret_suspects`);
only the events it suspects are checked and redacted one by one (:meth:`Event.redacted`).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from monologue.events import Event
from monologue.redact import may_contain_secret, secret_suspects

__all__ = ["scrub", "scrub_narrative"]

_ALREADY_REDACTED = attrgetter("already_redacted")


def _line(event: Event) -> str | None:
    try:
        return event.to_json()
    except ValueError:  # JSON cannot hold it: the recorder makes it safe
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
    lines = [_line(event) for event in events]
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


# A narrative's lists of the ids it covers: the covered events' ids, envelope fields that
# redaction reads in no event's own line, and that ``redact`` keeps as they are anyway (an id
# key's value). Up to ``buffer_cap`` of them, they were most of what a narrative's scrub read.
_COVERED_IDS = frozenset({"covers", "covers_range"})


def scrub_narrative(narrative: Event) -> Event:
    """:func:`scrub` for the narrative a session made of a narrator's answer: what the
    narrator and the claim checker wrote (text, model, usage, check record) is searched and
    redacted; the ids it covers are not searched. No line is made: the search reads the
    values, not a line, so a recorder serializes the narrative itself, and a session nobody
    records (an instant replay's, a narrative every few events) never does."""
    # Its values, not the dict's repr: the keys are the core's own (``text``, ``usage``...),
    # and a narrative is delivered every few events of an instant replay.
    told = "\n".join(
        value if type(value) is str else repr(value)
        for key, value in narrative.data.items()
        if value is not None and key not in _COVERED_IDS
    )
    return narrative.redacted() if may_contain_secret(told) else narrative
