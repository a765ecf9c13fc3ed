"""Clauses for what is not a tool use: what the agent and the user said, errors, a task's
result, a sub-agent's own task, a compaction, how the run ended, and what is still running
when the agent is quiet."""

from __future__ import annotations

import re
from typing import Any

from monologue.digest import is_interruption
from monologue.redact import redact, redact_text

from .actions import Action, Note
from .phrases import KINDS, wording_kind
from .prompts import command_name, origin_of, prompt_text, task_outcome
from .scene import ENDING, ERROR, LOW, SAY, TERSE_WORDS, TESTS, Clause, Scene, subject_of
from .wording import (
    capitalize,
    clamp_words,
    clip,
    first_sentence,
    humanize,
    is_first_person,
    join_list,
    own_words,
    plural,
    quoted,
    squash,
)

__all__ = ["duration", "note_clauses", "still_running", "with_ending"]

# A request that starts with one of these reads as "You asked me to fix ...".
_IMPERATIVE = frozenset(
    {
        *("add", "build", "change", "check", "clean", "create", "debug", "delete", "explain"),
        *("find", "fix", "help", "implement", "improve", "investigate", "look", "make", "move"),
        *("refactor", "remove", "rename", "review", "run", "set", "test", "try", "update"),
        *("write", "raise", "lower", "bump", "upgrade", "install", "migrate", "port"),
        *("rewrite", "optimize", "document", "deploy", "merge", "commit", "revert", "show"),
        *("start", "stop", "restart", "open", "search", "read", "use", "get", "tell", "list"),
        *("analyze", "research", "websearch", "summarize", "compare", "configure", "generate"),
    }
)


_COMPACTED = "(The conversation was compacted.)"
_INTENTION = re.compile(
    r"^(?:(?:Now|OK|Okay|Alright|Next|First|Then),? )?(?:let me|let's|I'll|I will|I'm going to)\b",
    re.IGNORECASE,
)
_ENDINGS = frozenset({"completed", "interrupted", "failed", "cut_off"})
_INFERENCE = re.compile(r",? (?:indicating|which (?:means|indicates|confirms)|confirming) that\b")
_VERDICT = re.compile(r"\b(?:pass(?:es|ed)?|fixed|resolved|works|succeeded)\b", re.IGNORECASE)


def asked(text: str, limit: int = 60) -> str:
    """A user's message, reported: "You asked me to fix the retry loop"."""
    said = squash(text)
    request = said.removeprefix("please ").removeprefix("Please ").lstrip(", ")
    if request.split(" ", 1)[0].lower() in _IMPERATIVE:
        return f"You asked me to {clip(request[:1].lower() + request[1:], limit)}"
    return f"You asked me: {quoted(said.rstrip('.'), limit)}"


def _result_sentence(subject: str, data: dict[str, Any]) -> tuple[str, bool]:
    """How a task ended (an ``agent_result``: outcome, task, notes, error, retrying), and
    whether it failed."""
    outcome = str(data.get("outcome") or "")
    task = f" task {data['task_id']}" if data.get("task_id") else ""
    error = data.get("error")
    reason = error.get("reason") if isinstance(error, dict) else None
    why = redact_text(squash(str(reason or data.get("notes") or "")))
    verb = {
        "success": "finished",
        "partial": "partly finished",
        "failed": "failed",
        "submitted": "submitted my work",
    }
    head = f"{subject} {verb.get(outcome, 'finished')}{task}"
    if outcome and outcome not in verb:
        head += f" ({humanize(outcome)})"
    text = f"{head}: {first_sentence(why, 100)}" if why else head
    if outcome == "failed" and data.get("retrying"):
        text += "; it will be retried"
    return text, outcome == "failed"


def note_clauses(scene: Scene, notes: list[Note], failing: bool = False) -> list[Clause]:
    """``failing``: a tool result of the batch failed, so the agent's own verdicts ("the
    check passes") are not repeated beside it: the outcomes told are the outputs'."""
    clauses = []
    for note in notes:
        clause = _note_clause(scene, note, failing)
        if clause is not None:
            clauses.append(clause)
    return clauses


def _said(text: str, priority: int, order: int, named: bool = False) -> Clause:
    return Clause(text, clamp_words(text, TERSE_WORDS), priority, order, None, named=named)


def _note_clause(scene: Scene, note: Note, failing: bool = False) -> Clause | None:
    who = subject_of(scene, note.agent)
    mine = who == "I"
    if note.type in ("text", "agent_update") and note.text.strip():
        said = first_sentence(humanize(note.text.strip()))
        # The agent's conclusions are its own ("…, indicating that the error is fixed"):
        # what it saw is told, what it inferred is not.
        # (" that" first: every inference has it, and the regex is slow to find nothing)
        seen = _INFERENCE.split(said, 1) if " that" in said else [said]
        if len(seen) > 1:
            said = seen[0].rstrip(" ,") + "."
        if not said.strip(". ") or (failing and _VERDICT.search(said)):
            return None
        intention = _INTENTION.match(said) is not None
        said = own_words(said) if mine else said
        progress = note.data.get("progress")
        if isinstance(progress, int | float) and 0 <= progress <= 1:
            said = f"{said.rstrip('.')} ({round(progress * 100)}% done)"
        text = said if mine else f"{capitalize(who)} says: {said}"
        clause = _said(text, SAY + (2 if scene.first and mine else 0), note.order)
        clause.intention = intention
        return clause
    if note.type == "error":
        text = f"{capitalize(who)} hit an error: {clip(note.text, 100)}"
        short = f"{capitalize(who)} hit an error: {clip(note.text, 30)}"
        return Clause(text, short, ERROR, note.order, None)
    if note.type == "agent_result":
        text, failed = _result_sentence(capitalize(who), note.data)
        return _said(text, ERROR if failed else SAY, note.order)
    if note.type == "user_message" and note.text.strip():
        if is_interruption(note.text):
            # Stopping a tool use is told with that tool ("..., but you declined").
            for_tool = "for tool use" in note.text
            return _said("You interrupted me", LOW if for_tool else ERROR, note.order)
        return _user_clause(note)
    if note.type == "subagent_task":
        name = clip(squash(str(note.data.get("name") or "")), 40)
        lead = f"I'm the {quoted(name, 40)} sub-agent" if name else "I'm a sub-agent"
        text = f"{lead}; I was asked: {quoted(squash(note.text).rstrip('.'), 80)}"
        return Clause(text, lead, SAY + 2, note.order, None, named=True)
    if note.type == "compaction":
        return Clause(_COMPACTED, _COMPACTED, SAY, note.order, None)
    if note.type == "thinking":
        text = "I'm thinking it through" if mine else f"{capitalize(who)} is thinking"
        return Clause(text, text, LOW, note.order, None)
    if note.type not in ("completion", "text", "agent_update", "agent_result", "user_message"):
        summary = clip(squash(note.text), 60)
        text = f"I noted a {note.type.replace('_', ' ')} event" + (
            f": {summary}" if summary else ""
        )
        return _said(text, LOW, note.order)
    return None


def _user_clause(note: Note) -> Clause | None:
    """A real prompt is "You asked me ..."; an injected message is its gist, or nothing."""
    origin = origin_of(note.text, note.data)
    if origin == "user":
        # The request is what the work is about: it outranks the work itself.
        return _said(asked(prompt_text(note.text)), SAY + 2, note.order, named=True)
    if origin == "compaction":
        return Clause(_COMPACTED, _COMPACTED, SAY, note.order, None)
    if origin == "task_notification":
        outcome = task_outcome(note.text)
        return _said(outcome, TESTS, note.order, named=True) if outcome else None
    if origin == "command_output" and command_name(note.text):
        text = f"You ran the `{command_name(note.text)}` command"
        return _said(text, LOW, note.order, named=True)
    return None  # system reminders, side requests, a command's output


def with_ending(scene: Scene, clauses: list[Clause], notes: list[Note]) -> list[Clause]:
    """One sentence about how the run ended (the completion's ``ending`` when a reader or
    replay set it, else what the session shows), replacing error notes and the user's
    interruption; never "I'm done" for a run that was interrupted or cut off."""
    completion = next((note for note in reversed(notes) if note.type == "completion"), None)
    data = completion.data if completion else {}
    errors = [note for note in notes if note.type == "error"]
    result = data.get("result")
    ending = data.get("ending")
    if ending not in _ENDINGS:
        ending = (
            "interrupted"
            if scene.memory.interrupted
            else "failed"
            if errors or (completion is not None and completion.is_error)
            else "cut_off"
            if scene.open_calls
            else "completed"
        )
    steps = brief = ""
    if scene.tool_calls:
        steps = brief = f" after {plural(scene.tool_calls, 'tool call')}"
        steps, brief = steps + _unrun(scene), brief + _unrun(scene, short=True)
    if ending == "failed":
        why = errors[-1].text if errors else str(result or "")
        text = f"I stopped because of an error: {clip(why, 100)}" if why else f"I failed{steps}"
        short = f"I stopped on an error: {clip(why, 30)}" if why else "I stopped on an error"
        clauses = [clause for clause in clauses if clause.priority != ERROR or clause.subject]
    elif ending == "interrupted":
        text, short = f"I stopped when you interrupted me{steps}", "You interrupted me; I stopped"
        clauses = [clause for clause in clauses if clause.short != "You interrupted me"]
    elif ending == "cut_off":
        text = f"My record ends mid-turn{steps}, before I finished"
        short = "My record ends mid-turn, before I finished"
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
    skipped = data.get("skipped_lines")
    if isinstance(skipped, int) and skipped > 0:
        lines = plural(skipped, "unreadable line")
        text = f"{text.rstrip('.')} ({lines} of the record skipped)"
        short = f"{short}; {lines} skipped"
    order = completion.order if completion else len(notes) + 10_000
    return [*clauses, Clause(text, clamp_words(short, TERSE_WORDS), ENDING, order, None)]


def _unrun(scene: Scene, short: bool = False) -> str:
    """How many calls failed, and how many did not run (cancelled, declined): ", 2 of which
    failed", ", of which 1 failed and 2 were cancelled"; short: "; 1 failed, 2 cancelled"."""
    memory = scene.memory
    failed = max(scene.tool_errors - memory.cancelled - memory.declined, 0)
    counts = [(failed, "failed"), (memory.cancelled, "cancelled"), (memory.declined, "declined")]
    found = [(count, word) for count, word in counts if count]
    if not found:
        return ""
    if short:
        return "; " + ", ".join(f"{count} {word}" for count, word in found)
    verbs = {"failed": "failed", "cancelled": "{} cancelled", "declined": "you declined"}
    said = [(count, verbs[word].format("was" if count == 1 else "were")) for count, word in found]
    if len(said) == 1:
        return f", {said[0][0]} of which {said[0][1]}"
    return ", of which " + join_list([f"{count} {verb}" for count, verb in said])


def still_running(scene: Scene, batch_size: int) -> Clause:
    """For ``idle``: what is still running and for how long."""
    order = batch_size + 10_000
    if scene.open_calls:
        call = scene.open_calls[0]
        data = call.data
        action = Action(data.get("tool_name"), redact(data.get("input") or {}), call.agent, 0)
        kind = KINDS[wording_kind(action)]
        running = kind.phrase([action], scene.cwd).running
        running_short = kind.phrase([action], scene.cwd, short=True).running
        others = len(scene.open_calls) - 1
        extra = f" and {plural(others, 'other step')}" if others else ""
        elapsed = (scene.now - call.ts).total_seconds() if scene.now else None
        since = f", {duration(elapsed)} so far" if elapsed is not None else ""
        who = subject_of(scene, call.agent)
        lead = "Still" if who == "I" else f"{capitalize(who)} is still"
        return Clause(
            f"{lead} {running}{extra}{since}",
            f"{lead} {running_short}{since}",
            ENDING,
            order,
            None,
            named=True,
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
