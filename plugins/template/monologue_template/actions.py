"""Buffered events regrouped as the narrator thinks of them: actions and notes.

An :class:`Action` is one tool use, its call and (once it came) its result. A result whose
call was narrated in an earlier turn is joined to it through the session's call memory, so
"I'm running the test suite." can be followed by "I ran the test suite; all 41 tests passed."
Every other event is a :class:`Note`. Tool inputs and notes' text are redacted here, once,
unless the pipeline already redacted the events (the ``narrate`` hook's batch); a tool's
output where it is quoted.

What a result shows is read here too, so that no wording claims more: a shell command sent
to the background has only *started*; a call cancelled because a parallel sibling failed
("Sibling tool call errored") did not fail on its own; a call the user declined did not run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from monologue.digest import (
    as_text,
    is_backgrounded,
    is_cancelled,
    is_declined,
    is_interruption,
)
from monologue.redact import may_contain_secret, redact, redact_text

from .tools import kind_of

if TYPE_CHECKING:
    from collections.abc import Iterable

    from monologue.events import Event

NOTE_LIMIT = 8000
"""Characters of a note's text read (a long agent message is told by its start)."""
MEMORY_LIMIT = 500
"""Calls remembered per session while waiting for their results."""


@dataclass(slots=True)
class Action:
    """One tool use. ``output`` is ``None`` while the tool is still running."""

    tool: str | None
    input: dict[str, Any]
    agent: str
    order: int
    use_id: str = ""
    ended: int | None = None
    """Where its result came in the batch (``None``: earlier, or not yet)."""
    output: str | None = None
    is_error: bool = False
    seen: bool = True
    """Whether its call came in (this batch or an earlier one): a result alone is of a call
    the core folded into a digest, which already counts it."""

    @property
    def running(self) -> bool:
        return self.output is None

    @property
    def backgrounded(self) -> bool:
        """A command sent to the background: its result says it started, not how it went."""
        return is_backgrounded(self.input, self.output)

    @property
    def cancelled(self) -> bool:
        """Cancelled because a sibling called in parallel failed: not a failure of its own."""
        return is_cancelled(self.output or "", self.is_error)

    @property
    def declined(self) -> bool:
        """The user refused to let it run."""
        return is_declined(self.output or "", self.is_error)


@dataclass(slots=True)
class Note:
    """Any other event: agent text, thinking, an error, the completion..."""

    type: str
    agent: str
    order: int
    text: str = ""
    is_error: bool = False
    data: dict[str, Any] = field(default_factory=dict)


CallMemory = dict[str, tuple[str | None, dict[str, Any], str]]
"""``tool_use_id`` -> ``(tool_name, redacted input, agent)`` of calls not yet answered."""


@dataclass
class Memory:
    """What the narrator remembers of a session between two narrations."""

    calls: CallMemory = field(default_factory=dict)
    last_failure: tuple[str, str] | None = None
    """``(tool_use_id, how it is said)`` of the latest failed call: the cause of cancelled
    siblings whose results come in a later batch."""
    cascades_told: dict[str, int] = field(default_factory=dict)
    """Failed calls whose cancelled siblings were already told, and how many (bounded)."""
    cancelled: int = 0
    """Calls cancelled so far: the session counts them among its failed calls."""
    declined: int = 0
    """Calls the user declined so far: the session counts them as failed too."""
    counted: list[str] = field(default_factory=list)
    """The latest such calls counted (bounded): a batch the narrator answered with *wait*
    comes back, and its calls are not counted twice."""

    acted: set[str] = field(default_factory=set)
    """Agents seen acting (calling tools, speaking), a few at most."""
    in_a_row: tuple[str, int] = ("", 0)
    """The latest narration (normalised) and how many times in a row it was said."""
    interrupted: bool = False
    """The latest thing the session holds is the user interrupting the agent."""

    def told_cascade(self, cause: str) -> int:
        """How many calls cancelled by ``cause`` were told so far (0: none yet)."""
        return self.cascades_told.get(cause, 0)

    def tell_cascade(self, cause: str, count: int) -> None:
        self.cascades_told[cause] = self.cascades_told.pop(cause, 0) + count
        while len(self.cascades_told) > 50:
            del self.cascades_told[next(iter(self.cascades_told))]

    def count_unrun(self, actions: Iterable[Action]) -> None:
        """Count the calls that did not run (cancelled, declined), each once."""
        for action in actions:
            # Both are failed results: the properties' text tests run only for those.
            if not action.is_error:
                continue
            if not (action.cancelled or action.declined) or action.use_id in self.counted:
                continue  # (the bounded list is searched only for the few that did not run)
            self.cancelled += action.cancelled
            self.declined += action.declined and not action.cancelled
            self.counted = [*self.counted[-199:], action.use_id]


def regroup(
    events: list[Event], memory: Memory, redacted: bool = False
) -> tuple[list[Action], list[Note]]:
    """Split ``events`` into actions (in call order) and notes, updating ``memory``.
    ``redacted``: the events went through the pipeline's redaction, which a second search
    would only repeat."""
    calls = memory.calls
    acted = memory.acted
    interrupted = memory.interrupted
    actions: dict[str, Action] = {}
    notes: list[Note] = []
    for order, event in enumerate(events):
        data = event.data
        kind = event.type
        if kind == "tool_call":
            if len(acted) < 32:
                acted.add(event.agent)
            use_id = str(data.get("tool_use_id"))
            tool = data.get("tool_name")
            tool_input = data.get("input") or {}
            if not redacted:
                tool_input = _redacted(tool, tool_input)
            # A reused id's latest call replaces the earlier one, and at its own place: the
            # dict stays in call order, which the actions are returned in.
            actions.pop(use_id, None)
            actions[use_id] = Action(tool, tool_input, event.agent, order, use_id)
            calls[use_id] = (tool, tool_input, event.agent)
            interrupted = False
        elif kind == "tool_result":
            use_id = str(data.get("tool_use_id"))
            action = actions.get(use_id)
            if action is None:
                known = calls.get(use_id)
                tool, tool_input, agent = known or (None, {}, event.agent)
                action = actions[use_id] = Action(
                    data.get("tool_name") or tool, tool_input, agent, order, use_id
                )
                action.seen = known is not None
            calls.pop(use_id, None)
            action.ended = order
            # Raw: only what is quoted from an output is redacted, where it is quoted
            # (errors.error_excerpt, outcomes, a sub-agent's report); redacting whole
            # outputs was most of a narration's cost.
            action.output = as_text(data.get("output"))
            action.is_error = bool(data.get("is_error"))
            interrupted = False
        else:
            if kind == "text" and len(acted) < 32:
                acted.add(event.agent)
            note = _note(event, order, redacted)
            notes.append(note)
            if kind == "user_message":
                interrupted = is_interruption(note.text)
            elif kind in ("text", "thinking"):
                interrupted = False
    memory.interrupted = interrupted
    while len(calls) > MEMORY_LIMIT:
        del calls[next(iter(calls))]
    memory.count_unrun(actions.values())
    return list(actions.values()), notes


# What a file tool writes is never quoted (only its lines are counted): left unredacted,
# since redacting whole files was a large part of a narration's cost.
_UNQUOTED = frozenset({"content", "old_string", "new_string", "edits", "new_source"})


def _redacted(tool: str | None, tool_input: dict[str, Any]) -> dict[str, Any]:
    if kind_of(tool, tool_input) not in ("write", "edit"):
        # One search of the input's repr (as Event.redacted does without a line) instead of
        # one per string: most inputs hold no secret.
        if not may_contain_secret(repr(tool_input)):
            return tool_input
        return redact(tool_input)  # type: ignore[no-any-return]
    kept = {key: value for key, value in tool_input.items() if key in _UNQUOTED}
    rest = {key: value for key, value in tool_input.items() if key not in _UNQUOTED}
    if may_contain_secret(repr(rest)):  # the same one search: a path seldom holds a secret
        rest = redact(rest)
    return {**rest, **kept}


def _note(event: Event, order: int, redacted: bool) -> Note:
    data = event.data
    raw = data.get("text", data.get("message", data.get("outcome", "")))
    text = as_text(raw)[:NOTE_LIMIT]
    return Note(
        type=event.type,
        agent=event.agent,
        order=order,
        text=text if redacted else redact_text(text),
        is_error=event.type == "error" or bool(data.get("is_error")),
        data=data,
    )
