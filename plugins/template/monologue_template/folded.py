"""A sentence about the events the core folded into a digest (``events_folded``).

When the narrator fell behind, a batch starts with one ``events_folded`` event summarising
the oldest events (counts by tool, files, commands, errors). The narrative covers them, so
it says what they were, from the digest's counts only: "Earlier, I also made 40 tool calls
(25 Bash, 10 Read, 5 Edit) on 12 files, running 25 commands, with 2 errors."
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from monologue.events import FOLDED_TYPE, Event

from .wording import plural

__all__ = ["folded_sentence", "with_folded"]

SHOWN_TOOLS = 3


def with_folded(events: list[Event], compose: Callable[[list[Event]], str]) -> str:
    """``compose`` the batch, preceded by a sentence about its digest if it has one. Not a
    *wait* then, even if the rest alone would be: the folded events need their narrative."""
    if not events or events[0].type != FOLDED_TYPE:
        return compose(events)
    sentence = folded_sentence(events[0].data)
    rest = compose(events[1:]) if len(events) > 1 else ""
    return f"{sentence} {rest}".strip()


def folded_sentence(digest: dict[str, Any]) -> str:
    """What the digest's counts show, in the first person, nothing more."""
    tools: dict[str, int] = digest.get("tools") or {}
    calls = sum(tools.values())
    errors = int(digest.get("errors") or 0)
    if not calls:
        sentence = f"Earlier, {plural(int(digest.get('count') or 0), 'more event')} came in"
    else:
        ranked = sorted(tools.items(), key=lambda item: (-item[1], item[0]))
        shown = ", ".join(f"{n} {name}" for name, n in ranked[:SHOWN_TOOLS])
        more = ", ..." if len(ranked) > SHOWN_TOOLS else ""
        sentence = f"Earlier, I also made {plural(calls, 'tool call')} ({shown}{more})"
        files = int(digest.get("files_total") or 0)
        if files:
            floor = "at least " if digest.get("files_at_least") else ""
            sentence += f" on {floor}{plural(files, 'file')}"
        commands = int(digest.get("commands_total") or 0)
        if commands:
            floor = "at least " if digest.get("commands_at_least") else ""
            sentence += f", running {floor}{plural(commands, 'distinct command')}"
    if errors:
        sentence += f", with {plural(errors, 'error')}"
    return sentence + "."
