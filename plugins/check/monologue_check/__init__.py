"""monologue-check: every narrative's claims held against the events it covers.

Installed, it checks every narrator's answers before delivery (``check_narrative``): quotes,
subjects, counts, outcomes, asks and voice. A false narration is retried once with feedback
when the narrator takes it, else replaced by a narrative told only from verified facts (see
:mod:`monologue.checking`). ``monologue check`` audits recordings the same way.

Imported whenever ``monologue`` starts: the checker's modules load on the first check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from monologue import hookimpl

if TYPE_CHECKING:
    import click

    from monologue import Session
    from monologue.checking import ClaimCheck
    from monologue.events import Event

__all__ = ["check_narrative", "register_commands"]

_STATE_KEY = "check"


@hookimpl
def check_narrative(session: Session, events: list[Event], text: str) -> ClaimCheck:
    from monologue.checking import ClaimCheck

    from .evidence import Evidence, Ledger
    from .plain import safe_text
    from .verify import check_text

    # One narration at a time per session (the worker's order), so the ledger of what
    # earlier narratives covered is only ever touched by one thread at once.
    ledger: Ledger = session.state.setdefault(_STATE_KEY, Ledger())
    stats = session.stats
    evidence = Evidence.of(
        events,
        ledger.before_batch(events),
        seen_calls=stats.tool_calls,
        seen_failures=stats.tool_errors,
    )
    claims, violations = check_text(text, evidence)
    if violations:
        return ClaimCheck(claims=claims, violations=violations, safe_text=safe_text(events))
    return ClaimCheck(claims=claims)


@hookimpl
def register_commands(cli: click.Group) -> None:
    from .command import check_command

    cli.add_command(check_command)
