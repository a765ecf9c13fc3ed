"""A narrative told only from verified facts: what goes out instead of a false one.

Every clause names a subject taken verbatim from a covered event (the tool's own input) and an
outcome taken from its result, so the text passes the checker by construction; a test holds
it to that over the whole claims corpus.
"""

from __future__ import annotations

from collections.abc import Iterable

from monologue.events import Event

from .evidence import Call, Evidence, norm

__all__ = ["safe_text"]

_MOST_CLAUSES = 3
_MOST_CHARS = 60
_VERBS = {
    "read": "read",
    "edit": "edited",
    "write": "wrote",
    "search": "searched for",
    "fetch": "fetched",
    "job": "checked on",
}
_ENDINGS = {
    "completed": "The run completed.",
    "interrupted": "The run was interrupted.",
    "failed": "The run ended with an error.",
    "cut_off": "The record ends mid-turn.",
}


def _short(text: str) -> str:
    """``text`` on one line, cut at a word boundary with an elision mark."""
    line = " ".join(text.split())
    if len(line) <= _MOST_CHARS:
        return line
    cut = line[:_MOST_CHARS].rsplit(" ", 1)[0]
    return f"{cut}…"


def _clause(call: Call) -> str:
    subject = _short(call.subject)
    if call.kind == "run":
        said = f"ran `{subject}`"
    elif call.kind == "agent":
        said = "asked a sub-agent for help"
    elif call.kind in _VERBS:
        said = f"{_VERBS[call.kind]} `{subject}`"
    elif call.tool_name == "StructuredOutput":  # the Agent SDK's tool for a run's typed answer
        said = "gave my structured answer"  # the template narrator's words for it
    else:
        said = f"used `{_short(call.tool_name)}`"
    if call.is_error:
        said += " (the tool reported an error)"
    return said


def safe_text(events: Iterable[Event]) -> str:
    """One or two plain sentences about ``events``, each claim checkable against them."""
    evidence = Evidence.of(events)
    sentences: list[str] = []
    if evidence.prompts:
        sentences.append("You asked me for something new.")
    clauses: list[str] = []
    seen: set[str] = set()
    for call in evidence.calls:
        clause = _clause(call)
        if norm(clause) not in seen:
            seen.add(norm(clause))
            clauses.append(clause)
    if clauses:
        told = clauses[:_MOST_CLAUSES]
        rest = len(evidence.calls) - len(told)
        listed = ", ".join(told[:-1]) + (" and " if len(told) > 1 else "") + told[-1]
        more = f", and made {rest} more tool calls" if rest > 0 and len(seen) > len(told) else ""
        sentences.append(f"I {listed}{more}.")
    if evidence.ending is not None:
        sentences.append(_ENDINGS.get(evidence.ending, "The run ended."))
    return " ".join(sentences) or "I kept working."
