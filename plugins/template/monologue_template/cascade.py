"""Calls cancelled because a parallel sibling failed, told once, with their cause.

When one of several parallel tool calls fails, Claude Code cancels the others ("Sibling tool
call errored"). Those did not fail on their own, so they are not counted as failures: they
are told in one sentence naming the call that failed ("Reading a.py failed, so 2 parallel
calls were cancelled: read b.py and run `ls`."), the first time only; more cancellations
with the same cause, in a later batch, give the full count ("In all, 7 parallel calls were
cancelled ...").
"""

from __future__ import annotations

from .actions import Action
from .phrases import KINDS, wording_kind
from .scene import LOW, TESTS, Clause, Scene, lower_first
from .wording import capitalize, join_list, plural

__all__ = ["cascade_clauses"]


def _doing(action: Action, cwd: str | None) -> str:
    kind = KINDS[wording_kind(action)]
    return " ".join(f"{kind.verbs[2]} {kind.one(action, cwd, False)}".split())


def _did(action: Action, cwd: str | None) -> str:
    kind = KINDS[wording_kind(action)]
    return " ".join(f"{kind.verbs[0]} {kind.one(action, cwd, False)}".split())


def cascade_clauses(scene: Scene, actions: list[Action]) -> tuple[list[Action], list[Clause]]:
    """``actions`` without the cancelled ones, and the clause that tells those (if due)."""
    memory = scene.memory
    kept: list[Action] = []
    cancelled: list[Action] = []
    for action in actions:  # one pass, searching only a failed result's output
        (cancelled if action.is_error and action.cancelled else kept).append(action)
    failed = [a for a in kept if a.is_error and not a.running]
    cause = memory.last_failure
    if failed:
        cause = (failed[0].use_id, _doing(failed[0], scene.cwd))
        memory.last_failure = (failed[-1].use_id, _doing(failed[-1], scene.cwd))
    if not cancelled:
        return kept, []
    key = cause[0] if cause else ""
    told = memory.told_cascade(key) if key else 0
    memory.tell_cascade(key, len(cancelled))
    order = min(a.order if a.ended is None else a.ended for a in cancelled)
    if told:
        # More siblings of a failure already told: the full count, once it is known.
        total = told + len(cancelled)
        after = cause[1] if cause else "that failure"
        text = f"In all, {total} parallel calls were cancelled after {after} failed"
        return kept, [
            Clause(text, f"In all, {total} parallel calls were cancelled", LOW, order, None)
        ]
    count = plural(len(cancelled), "parallel call")
    were = "was" if len(cancelled) == 1 else "were"
    names = join_list([_did(action, scene.cwd) for action in cancelled])
    why = f"{capitalize(cause[1])} failed, so" if cause else "A sibling call failed, so"
    text = f"{why} {count} {were} cancelled: {names}"
    short = f"{lower_first(why)} {count} {were} cancelled"
    return kept, [Clause(text, capitalize(short), TESTS, order + 0.75, None, named=True)]
