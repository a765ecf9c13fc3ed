"""From regrouped events to one to four sentences, following the preset and the history.

Every batch becomes candidate clauses with a priority (how the run ended, then failures,
then test results, then other work, then what the agent said, then the rest). The preset
decides how many make it: terse takes the most important one in at most ten words, naming
its subject when the batch has one; default one or two sentences; verbose two to four,
adding details and the run's progress. Clauses are spoken in the order things happened; a
sentence already in the history is said differently ("I'm still ...", "Again, ...") rather
than repeated, and so is a narration that would read like the one before it once its
commands, paths and numbers are left out.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from operator import attrgetter
from typing import TYPE_CHECKING

from .actions import Action, Note, regroup
from .cascade import cascade_clauses
from .notes import note_clauses, still_running, with_ending
from .phrases import KINDS, wording_kind
from .scene import (
    ENDING,
    ERROR,
    LOW,
    TERSE_WORDS,
    TESTS,
    WORK,
    Clause,
    Scene,
    lower_first,
    subject_of,
)
from .wording import (
    capitalize,
    clamp_words,
    join_list,
    names_subject,
    plural,
    skeleton,
    split_sentences,
    squash,
    without_punctuation,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from monologue.events import Event

__all__ = ["Scene", "narrate"]

_ROUTINE_RANK = {"edit": 2, "write": 2, "bash": 1}
"""Which routine steps a long stretch names first when it cannot name them all."""
_AGAIN = re.compile(r"^(?:Again|Once more), ", re.IGNORECASE)
_INTERRUPTED = frozenset({"You interrupted me", "You interrupted me; I stopped"})
_LISTED = 3
"""Routine steps of different kinds one sentence names before counting the rest."""

LIMITS = {"terse": (1, 1), "default": (1, 2), "verbose": (2, 4)}
"""Fewest and most sentences per preset."""


def narrate(scene: Scene, events: list[Event], reason: str) -> str:
    """The narration of ``events``; empty (keep buffering) when they hold nothing to tell
    (a side request, a system reminder...) and the run goes on."""
    actions, notes = regroup(events, scene.memory, scene.redacted)
    actions, cascade = cascade_clauses(scene, actions)
    clauses = _action_clauses(scene, actions) + cascade
    ending = reason == "final"
    if notes:  # (most batches are tool uses alone: nothing to scan the actions for)
        clauses += _remarks(scene, notes, actions)
        ending = ending or any(note.type == "completion" for note in notes)
    if ending:
        clauses = with_ending(scene, clauses, notes)
    if reason == "idle":
        clauses.append(still_running(scene, len(events)))
    if not clauses:
        if events and reason != "final":
            return ""  # nothing to tell yet (skipped injected messages...): keep buffering
        clauses = [Clause("I'm still working", "I'm still working", LOW, 0, subject=None)]
    return _compose(scene, clauses)


def _remarks(scene: Scene, notes: list[Note], actions: list[Action]) -> list[Clause]:
    """The notes' clauses, with the batch's actions in mind."""
    remarks = note_clauses(scene, notes, any(action.is_error for action in actions))
    if remarks and any(not action.running for action in actions):
        # "Let me check x" is stale once the batch tells what was done.
        return [clause for clause in remarks if not clause.intention]
    return remarks


def _action_clauses(scene: Scene, actions: list[Action]) -> list[Clause]:
    groups: dict[tuple[str, str, str, bool], list[Action]] = {}
    for action in actions:
        if scene.after_digest and not action.seen and not action.is_error:
            continue  # its call was folded into the digest, which counts it; nothing new
        kind = wording_kind(action)
        # An unseen call's failure is its own clause: it must not add to a named group's count.
        tool = (action.tool or "") if kind == "other" else "" if action.seen else "?"
        groups.setdefault((action.agent, kind, tool, action.running), []).append(action)
    terse = scene.preset == "terse"
    clauses = []
    for (agent, kind, _, running), group in groups.items():
        # Worded only as the preset says it: short for terse, as the clause's both forms (the
        # other is read only to find the user's interruption, which no action is), and with
        # details for verbose alone.
        phrase = KINDS[kind].phrase(group, scene.cwd, terse, scene.preset == "verbose")
        said = phrase.running if running else phrase.done
        # Told where it happened: a finished step when it finished (a sub-agent's report
        # after its own steps), a running one when it started.
        told = [a.order if running or a.ended is None else a.ended for a in group]
        order = min(told)
        news = kind in ("tests", "task", "background") and not running
        priority = ERROR if phrase.failed and not running else TESTS if news else WORK
        clause = Clause(
            said,
            said,
            priority,
            order,
            subject_of(scene, agent),
            running=running,
            weight=len(group),
            details=phrase.details,
            listed=phrase.listed,
            rank=_ROUTINE_RANK.get(kind, 0),
        )
        if terse:  # what names the subject, the latest step ("last, ..."): terse alone reads them
            clause.named = names_subject(said)
            clause.end = max(told)
            if len(group) > 1:
                clause.latest = _latest_step(kind, group, told, scene.cwd)
        clauses.append(clause)
        failure = phrase.failure
        if failure:
            who = subject_of(scene, agent)
            text = f"when {failure.doing}, {who} got: {failure.reason}"
            short = f"{who} {failure.short}: {clamp_words(failure.reason, 4)}"
            clauses.append(Clause(text, short, ERROR, order + 0.5, None, named=True))
    if scene.preset != "terse":  # terse says only the latest thing anyway
        clauses = _merge_routine(clauses)
    return clauses


def _latest_step(
    kind: str, group: list[Action], told: list[int], cwd: str | None
) -> Callable[[], str]:
    """The short form of a group's latest step alone: "ran `git push`", not the group's
    "ran `make build` and 2 more"."""
    latest = group[told.index(max(told))]
    return lambda: KINDS[kind].phrase([latest], cwd, short=True).done


def _merge_routine(clauses: list[Clause]) -> list[Clause]:
    """One sentence for an agent's finished routine steps of different kinds: "I looked for
    files matching *.py (found 3), read a.py and searched for "retry" (1 file matched)."."""
    routine: dict[str, list[Clause]] = {}
    for clause in clauses:
        if clause.priority == WORK and not clause.running and clause.listed and clause.subject:
            routine.setdefault(clause.subject, []).append(clause)
    merged: list[Clause] = []
    merged_ids: set[int] = set()
    for subject, group in routine.items():
        if len(group) < 2:
            continue
        shown = group
        # Edits and commands over reads and searches, in their order; a single step left
        # over is named too, never "took 1 more step".
        folded = len(group) > _LISTED + 1
        if folded:
            kept = {id(clause) for clause in sorted(group, key=lambda c: -c.rank)[:_LISTED]}
            shown = [clause for clause in group if id(clause) in kept]
        parts = [clause.listed for clause in shown]
        if folded:
            more = sum(clause.weight for clause in group if id(clause) not in kept)
            parts.append(f"took {plural(more, 'more step')}")
        text = join_list(parts, limit=len(parts))
        # Not ``named``: terse reads it, and terse never merges.
        joined = Clause(text, text, WORK, group[0].order, subject, weight=0)
        for clause in group:
            joined.weight += clause.weight
            joined.details += clause.details
        merged.append(joined)
        merged_ids.update(map(id, group))
    if not merged:
        return clauses
    return [clause for clause in clauses if id(clause) not in merged_ids] + merged


def _compose(scene: Scene, clauses: list[Clause]) -> str:
    said = _said_before(scene.history)
    last = skeleton(scene.history[-1]) if scene.history and not scene.first else None
    # Highest first, ties kept in their order (as an ascending sort on negated keys would),
    # by keys read in C rather than a lambda's call per clause.
    ranked = sorted(clauses, key=attrgetter("priority", "weight", "order"), reverse=True)
    text = _tidy(_render(scene, ranked, said))
    if skeleton(text) == last and not text.startswith(("Next,", "Again,", "Once more,")):
        # Reads like the narration before: say it is the next step, never "again" (that
        # would claim a repeat the events may not show).
        text = f"Then, {lower_first(text)}"
    return _unrepeated(scene, text)


def _unrepeated(scene: Scene, text: str) -> str:
    """A narration that would only add "Again," to the one before it tells how many times
    in a row it happened instead."""
    plain = _plain(text)
    memory = scene.memory
    if scene.history and plain == _plain(scene.history[-1]):
        memory.in_a_row = (
            (plain, max(memory.in_a_row[1], 1) + 1) if memory.in_a_row[0] == plain else (plain, 2)
        )
        body = _AGAIN.sub("", text).rstrip(".")
        return f"{capitalize(body)}, {_ordinal(memory.in_a_row[1])} time in a row."
    memory.in_a_row = (plain, 1)
    return text


# Each narrative is made plain twice: as it is told, and as the history's latest at the next.
@functools.lru_cache(maxsize=64)
def _plain(text: str) -> str:
    return _normal(_AGAIN.sub("", text))


def _ordinal(number: int) -> str:
    names = {2: "the second", 3: "the third", 4: "the fourth", 5: "the fifth"}
    return names.get(number, f"the {number}th")


def _render(scene: Scene, ranked: list[Clause], said: frozenset[str]) -> str:
    if scene.preset == "terse":
        return _terse(ranked, said)
    fewest, most = LIMITS.get(scene.preset, LIMITS["default"])
    if ranked[0].priority == ENDING:  # (the highest priority, ranked first)
        most += 1  # how the run ended is said on top of what the last events did
    chosen: list[tuple[Clause, str]] = []  # each with its plain form, which _fresh tries first
    count = 0
    for clause in ranked:
        if count == most:
            break  # no room left: every clause says a sentence at least
        if clause.priority == LOW and chosen:
            continue
        text = clause.render()
        size = len(split_sentences(text))
        if count + size > most:
            continue
        chosen.append((clause, text))
        count += size
    chosen.sort(key=lambda pair: (pair[0].priority == ENDING, pair[0].order))
    sentences = [_fresh(clause, said, plain=text) for clause, text in chosen]
    if scene.preset == "verbose":
        sentences = _fill(scene, chosen, sentences, fewest, most)
    return " ".join(_next(scene, sentences))


def _terse(ranked: list[Clause], said: frozenset[str]) -> str:
    """The most important clause in ten words. When it names nothing concrete and another
    clause does (a command, a file...), that one is said instead, or with the ending."""
    top = ranked[0]
    named = next((c for c in ranked if c.named and c.priority >= min(top.priority, WORK)), None)
    if top.named or named is None:
        return clamp_words(_fresh(top, said, short=True), TERSE_WORDS)
    # "I'm done after 12 tool calls" and "You interrupted me" say little: what came last
    # names the subject ("; 2 failed" is news of its own).
    if top.priority == ENDING and top.short.startswith("I'm done"):
        step = _last_step(ranked, said, below=ENDING)
        return clamp_words(f"I'm done; last, {step}", TERSE_WORDS)
    if top.short in _INTERRUPTED and any(c.named and c.priority < ERROR for c in ranked):
        step = _last_step(ranked, said, below=ERROR)
        return clamp_words(f"{top.short}; last, {step}", TERSE_WORDS)
    if top.priority >= ERROR:
        return clamp_words(_fresh(top, said, short=True), TERSE_WORDS)
    return clamp_words(_fresh(named, said, short=True), TERSE_WORDS)


def _last_step(ranked: list[Clause], said: frozenset[str], below: int) -> str:
    """The latest step under priority ``below`` that names its subject, alone (not the
    first of its group)."""
    latest = max((c for c in ranked if c.named and c.priority < below), key=lambda c: c.last)
    alone = latest.latest() if latest.latest is not None else ""
    if names_subject(alone):
        latest = replace(latest, short=alone, latest=None)
    return lower_first(_fresh(latest, said, short=True))


def _fill(
    scene: Scene, chosen: list[tuple[Clause, str]], sentences: list[str], fewest: int, most: int
) -> list[str]:
    """Verbose: each clause followed by its details, then the run's progress if still short."""
    room = most - sum(len(split_sentences(text)) for text in sentences)
    filled: list[str] = []
    for (clause, _), text in zip(chosen, sentences, strict=True):
        filled.append(text)
        for detail in clause.details:
            if room > 0:
                filled.append(detail)
                room -= 1
    if len(filled) < fewest and scene.tool_calls:
        progress = f"So far I've made {plural(scene.tool_calls, 'tool call')}"
        if scene.tool_errors:
            progress += f", and {scene.tool_errors} failed"
        filled.append(progress + ".")
    if len(filled) < fewest:
        filled.append("I'll say more as it happens.")
    return filled


def _said_before(history: list[str]) -> frozenset[str]:
    # One union of the cached sets, in C, rather than one ``|=`` per narrative.
    return frozenset().union(*map(_sentences_said, history))


# The history repeats from one narration to the next: each narrative is read once.
@functools.lru_cache(maxsize=1024)
def _sentences_said(text: str) -> frozenset[str]:
    return frozenset(_normal(part) for part in split_sentences(text))


@functools.lru_cache(maxsize=2048)
def _normal(text: str) -> str:
    return without_punctuation(text).lower().strip()


def _fresh(
    clause: Clause, said: frozenset[str], short: bool = False, plain: str | None = None
) -> str:
    """The clause as a sentence not already in the history, if a variant allows. ``plain``:
    its form without a variant, when the caller rendered it already."""
    text = clause.render(short) if plain is None else plain
    for variant in (1, 2):  # "Again, ...", then "Once more, ..."
        if _normal(text) not in said:
            return text
        text = clause.render(short, variant)
    return text


def _next(scene: Scene, sentences: list[str]) -> list[str]:
    """Open with "Next," when the previous narration opened the same way ("I read ...")."""
    if scene.first or not scene.history or not sentences:
        return sentences
    # Their first two words only: a whole narrative split for two words was most of it.
    last = scene.history[-1].split(maxsplit=2)[:2]
    first = sentences[0].split(maxsplit=2)[:2]
    if len(last) == 2 and first == last and first[0] == "I":
        sentences[0] = f"Next, I {' '.join(sentences[0].split()[1:])}"
    return sentences


def _tidy(text: str) -> str:
    """One line: escaped and real line breaks collapsed, never a literal ``\\n``."""
    return squash(text)
