"""From regrouped events to one to four sentences, following the preset and the history.

Every batch becomes candidate clauses with a priority (how the run ended, then failures,
then test results, then other work, then what the agent said, then the rest). The preset
decides how many make it: terse takes the most important one in at most ten words; default
one or two sentences; verbose two to four, adding details and the run's progress. Clauses are
spoken in the order things happened; a sentence already in the history is said differently
("I'm still ...", "Again, ...") rather than repeated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from monologue.redact import redact, redact_text

from .actions import Action, CallMemory, Note, regroup
from .phrases import KINDS, wording_kind
from .wording import (
    capitalize,
    clamp_words,
    clip,
    first_sentence,
    is_first_person,
    join_list,
    plural,
    quoted,
    sentence,
    split_sentences,
    squash,
)

if TYPE_CHECKING:
    from monologue.events import Event

ENDING, ERROR, TESTS, WORK, SAY, LOW = 5, 4, 3, 2, 1, 0
TERSE_WORDS = 10
LIMITS = {"terse": (1, 1), "default": (1, 2), "verbose": (2, 4)}
"""Fewest and most sentences per preset."""


@dataclass
class Scene:
    """What the narrator knows besides the events: the session's state, as plain data."""

    agent: str
    preset: str = "default"
    first: bool = False
    history: list[str] = field(default_factory=list)
    open_calls: list[Event] = field(default_factory=list)
    """Tool calls still without a result, oldest first (for ``idle``)."""
    now: datetime | None = None
    quiet_s: float | None = None
    """Seconds since the agent's last event (for ``idle``)."""
    tool_calls: int = 0
    tool_errors: int = 0
    cwd: str | None = None
    memory: CallMemory = field(default_factory=dict)


@dataclass
class Clause:
    """Something to say. ``subject`` ``None`` means ``text`` is a whole sentence already."""

    text: str
    short: str
    priority: int
    order: float
    subject: str | None = "I"
    running: bool = False
    weight: int = 1
    details: list[str] = field(default_factory=list)
    listed: str = ""
    """How it reads among other steps in one sentence (see :func:`_merge_routine`)."""

    def render(self, short: bool = False, variant: int = 0) -> str:
        body = self.short if short else self.text
        again = ("", "Again, ", "Once more, ")[min(variant, 2)]
        if self.subject is None:
            return sentence(again + (_lower_first(body) if again else body))
        if self.running:
            still = " still" if variant else ""
            verb = "'m" if self.subject == "I" else " is"
            return sentence(f"{capitalize(self.subject)}{verb}{still} {body}")
        subject = self.subject if again else capitalize(self.subject)
        return sentence(f"{again}{subject} {body}")


def narrate(scene: Scene, events: list[Event], reason: str) -> str:
    """The narration of ``events`` (never empty when something happened)."""
    actions, notes = regroup(events, scene.memory)
    clauses = _action_clauses(scene, actions) + _note_clauses(scene, notes)
    if reason == "final" or any(note.type == "completion" for note in notes):
        clauses = _with_ending(scene, clauses, notes)
    if reason == "idle":
        clauses.append(_still_running(scene, len(events)))
    if not clauses:
        clauses = [Clause("I'm still working", "I'm still working", LOW, 0, subject=None)]
    return _compose(scene, clauses)


def _subject(scene: Scene, agent: str) -> str:
    """Who acted: "I", a sub-agent named ``parent/task`` ("the "Find it" sub-agent"), or
    another agent by name."""
    if not agent or agent == scene.agent:
        return "I"
    if "/" in agent:
        return f'the "{clip(agent.rsplit("/", 1)[-1], 40)}" sub-agent'
    return f"the {agent} agent"


def _action_clauses(scene: Scene, actions: list[Action]) -> list[Clause]:
    groups: dict[tuple[str, str, str, bool], list[Action]] = {}
    for action in actions:
        kind = wording_kind(action)
        tool = (action.tool or "") if kind == "other" else ""
        groups.setdefault((action.agent, kind, tool, action.running), []).append(action)
    clauses = []
    for (agent, kind, _, running), group in groups.items():
        phrase = KINDS[kind].phrase(group, scene.cwd)
        order = group[0].order
        failed = not running and KINDS[kind].all_failed(group)
        priority = ERROR if failed else TESTS if kind == "tests" and not running else WORK
        clauses.append(
            Clause(
                phrase.running if running else phrase.done,
                phrase.running_short if running else phrase.done_short,
                priority,
                order,
                subject=_subject(scene, agent),
                running=running,
                weight=len(group),
                details=phrase.details,
                listed=phrase.listed,
            )
        )
        failure = phrase.failure
        if failure:
            who = _subject(scene, agent)
            text = f"when {failure.doing}, {who} got: {failure.reason}"
            short = f"{who} couldn't {failure.short}: {clamp_words(failure.reason, 4)}"
            clauses.append(Clause(text, short, ERROR, order + 0.5, None))
    if scene.preset != "terse":  # terse says only the latest thing anyway
        clauses = _merge_routine(clauses)
    return clauses


def _merge_routine(clauses: list[Clause]) -> list[Clause]:
    """One sentence for an agent's finished routine steps of different kinds: "I looked for
    files matching *.py (found 3), read a.py and searched for "retry" (1 file matched)."."""
    routine: dict[str, list[Clause]] = {}
    for clause in clauses:
        if clause.priority == WORK and not clause.running and clause.listed and clause.subject:
            routine.setdefault(clause.subject, []).append(clause)
    for subject, group in routine.items():
        if len(group) < 2:
            continue
        parts = [clause.listed for clause in group]
        if len(parts) > 3:
            parts = [*parts[:3], f"took {plural(len(parts) - 3, 'more step')}"]
        text = join_list(parts, limit=len(parts))
        merged = Clause(
            text,
            text,
            WORK,
            group[0].order,
            subject=subject,
            weight=sum(clause.weight for clause in group),
            details=[detail for clause in group for detail in clause.details],
        )
        merged_ids = {id(clause) for clause in group}
        clauses = [clause for clause in clauses if id(clause) not in merged_ids]
        clauses.append(merged)
    return clauses


def _result_sentence(subject: str, data: dict[str, Any]) -> tuple[str, bool]:
    """How a task ended (an ``agent_result``: outcome, task, notes, error, retrying), and
    whether it failed."""
    outcome = str(data.get("outcome") or "")
    task = f" task {data['task_id']}" if data.get("task_id") else ""
    error = data.get("error")
    reason = error.get("reason") if isinstance(error, dict) else None
    why = redact_text(squash(str(reason or data.get("notes") or "")))
    verb = {"success": "finished", "partial": "partly finished", "failed": "failed"}
    head = f"{subject} {verb.get(outcome, 'finished')}{task}"
    if outcome and outcome not in verb:
        head += f" ({outcome})"
    text = f"{head}: {first_sentence(why, 100)}" if why else head
    if outcome == "failed" and data.get("retrying"):
        text += "; it will be retried"
    return text, outcome == "failed"


def _note_clauses(scene: Scene, notes: list[Note]) -> list[Clause]:
    clauses = []
    for note in notes:
        who = _subject(scene, note.agent)
        mine = who == "I"
        if note.type in ("text", "agent_update") and note.text.strip():
            said = first_sentence(note.text)
            progress = note.data.get("progress")
            if isinstance(progress, int | float) and 0 <= progress <= 1:
                said = f"{said.rstrip('.')} ({round(progress * 100)}% done)"
            text = said if mine else f"{capitalize(who)} says: {said}"
            priority = SAY + (2 if scene.first and mine else 0)
            clauses.append(Clause(text, clamp_words(text, TERSE_WORDS), priority, note.order, None))
        elif note.type == "error":
            text = f"{capitalize(who)} hit an error: {clip(note.text, 100)}"
            short = f"{capitalize(who)} hit an error: {clip(note.text, 30)}"
            clauses.append(Clause(text, short, ERROR, note.order, None))
        elif note.type == "agent_result":
            text, failed = _result_sentence(capitalize(who), note.data)
            priority = ERROR if failed else SAY
            clauses.append(Clause(text, clamp_words(text, TERSE_WORDS), priority, note.order, None))
        elif note.type == "user_message" and note.text.strip():
            if scene.first:  # the request is what the work is about
                text = f"I'm starting on your request: {quoted(note.text, 60)}"
                clauses.append(Clause(text, text, SAY + 2, note.order, None))
            else:
                text = f"You asked: {quoted(note.text, 60)}"
                clauses.append(Clause(text, text, LOW, note.order, None))
        elif note.type == "thinking":
            text = "I'm thinking it through" if mine else f"{capitalize(who)} is thinking"
            clauses.append(Clause(text, text, LOW, note.order, None))
        elif note.type not in ("completion", "text", "agent_update", "agent_result"):
            summary = clip(squash(note.text), 60)
            text = f"I noted a {note.type.replace('_', ' ')} event" + (
                f": {summary}" if summary else ""
            )
            clauses.append(Clause(text, clamp_words(text, TERSE_WORDS), LOW, note.order, None))
    return clauses


def _with_ending(scene: Scene, clauses: list[Clause], notes: list[Note]) -> list[Clause]:
    """Replace error notes by one sentence about how the run ended."""
    completion = next((note for note in reversed(notes) if note.type == "completion"), None)
    errors = [note for note in notes if note.type == "error"]
    failed = bool(errors) or (completion is not None and completion.is_error)
    result = completion.data.get("result") if completion else None
    steps = brief = ""
    if scene.tool_calls:
        steps = brief = f" after {plural(scene.tool_calls, 'tool call')}"
        if scene.tool_errors:
            steps += f", {scene.tool_errors} of which failed"
            brief += f"; {scene.tool_errors} failed"
    if failed:
        why = errors[-1].text if errors else str(result or "")
        text = (
            f"I stopped because of an error: {clip(why, 100)}" if why else "I stopped on an error"
        )
        short = f"I stopped on an error: {clip(why, 30)}" if why else "I stopped on an error"
        clauses = [clause for clause in clauses if clause.priority != ERROR or clause.subject]
    else:
        summary = first_sentence(result, 100) if isinstance(result, str) else ""
        if any(summary and summary in note.text for note in notes):
            summary = ""  # the agent just said it
        short = f"I'm done{brief}"
        if summary and is_first_person(summary):
            text = f"I'm done{steps}. {summary}"
        elif summary:
            text = f"I'm done{steps}: {summary}"
        else:
            text = f"I'm done{steps}"
    order = completion.order if completion else len(notes) + 10_000
    return [*clauses, Clause(text, clamp_words(short, TERSE_WORDS), ENDING, order, None)]


def _still_running(scene: Scene, batch_size: int) -> Clause:
    """For ``idle``: what is still running and for how long."""
    order = batch_size + 10_000
    if scene.open_calls:
        call = scene.open_calls[0]
        data = call.data
        action = Action(data.get("tool_name"), redact(data.get("input") or {}), call.agent, 0)
        phrase = KINDS[wording_kind(action)].phrase([action], scene.cwd)
        others = len(scene.open_calls) - 1
        extra = f" and {plural(others, 'other step')}" if others else ""
        elapsed = (scene.now - call.ts).total_seconds() if scene.now else None
        since = f", {duration(elapsed)} so far" if elapsed is not None else ""
        who = _subject(scene, call.agent)
        lead = "Still" if who == "I" else f"{capitalize(who)} is still"
        return Clause(
            f"{lead} {phrase.running}{extra}{since}",
            f"{lead} {phrase.running_short}{since}",
            ENDING,
            order,
            None,
        )
    if scene.quiet_s is not None:
        text = f"I'm still working; nothing new for {duration(scene.quiet_s)}"
        return Clause(text, text, ENDING, order, None)
    return Clause("I'm still working", "I'm still working", ENDING, order, None)


def duration(seconds: float) -> str:
    """``"40 s"``, ``"3 min 5 s"``, ``"1 h 2 min"``."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min" + (f" {secs} s" if secs else "")
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h" + (f" {minutes} min" if minutes else "")


def _compose(scene: Scene, clauses: list[Clause]) -> str:
    fewest, most = LIMITS.get(scene.preset, LIMITS["default"])
    said = _said_before(scene.history)
    ranked = sorted(clauses, key=lambda c: (-c.priority, -c.weight, -c.order))
    if scene.preset == "terse":
        return clamp_words(_fresh(ranked[0], said, short=True), TERSE_WORDS)
    chosen: list[Clause] = []
    count = 0
    for clause in ranked:
        if clause.priority == LOW and chosen:
            continue
        size = len(split_sentences(clause.render()))
        if count + size > most:
            continue
        chosen.append(clause)
        count += size
    chosen.sort(key=lambda c: (c.priority == ENDING, c.order))
    sentences = [_fresh(clause, said) for clause in chosen]
    if scene.preset == "verbose":
        sentences = _fill(scene, chosen, sentences, fewest, most)
    return " ".join(_next(scene, sentences))


def _fill(
    scene: Scene, chosen: list[Clause], sentences: list[str], fewest: int, most: int
) -> list[str]:
    """Verbose: each clause followed by its details, then the run's progress if still short."""
    room = most - sum(len(split_sentences(text)) for text in sentences)
    filled: list[str] = []
    for clause, text in zip(chosen, sentences, strict=True):
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


def _said_before(history: list[str]) -> set[str]:
    return {_normal(part) for text in history for part in split_sentences(text)}


def _normal(text: str) -> str:
    return re.sub(r"[^\w\s]", "", text).lower().strip()


def _fresh(clause: Clause, said: set[str], short: bool = False) -> str:
    """The clause as a sentence not already in the history, if a variant allows."""
    for variant in range(3):
        text = clause.render(short, variant)
        if _normal(text) not in said:
            return text
    return text


def _next(scene: Scene, sentences: list[str]) -> list[str]:
    """Open with "Next," when the previous narration opened the same way ("I read ...")."""
    if scene.first or not scene.history or not sentences:
        return sentences
    last = scene.history[-1].split()[:2]
    first = sentences[0].split()
    if len(last) == 2 and first[:2] == last and first[0] == "I":
        sentences[0] = f"Next, I {' '.join(first[1:])}"
    return sentences


def _lower_first(text: str) -> str:
    if text[:2] in ("I ", "I'") or text[:1] in "`\"'":
        return text
    return text[:1].lower() + text[1:]
