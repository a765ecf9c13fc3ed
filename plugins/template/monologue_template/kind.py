"""The generic wording of a tool use, which every tool kind refines.

A :class:`Kind` knows a tool's verbs ("read", "read", "reading"), how to name one use of it
(a path, a command, a pattern...), how to name several at once ("3 files: a.py, b.py and
c.py"), and what came of them ("; 2 of 41 tests failed"). Every phrase has a full form and a
short one for the terse preset.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from monologue.digest import SALIENT_KEYS

from .actions import Action
from .errors import error_excerpt
from .tools import tool_label
from .wording import clip_middle, join_list, plural

__all__ = ["Failure", "Kind", "Phrase", "Verbs", "listed", "unique"]

Verbs = tuple[str, str, str]
"""Base, past and progressive forms: ``("read", "read", "reading")``."""


@dataclass(frozen=True)
class Failure:
    """A failed action: what it was doing ("running `false`"), what came of it briefly
    ("couldn't read a.py", "ran `false`; it failed"), and why it failed."""

    doing: str
    short: str
    reason: str


@dataclass(slots=True)
class Phrase:
    """What a batch of same-kind actions amounts to, without its subject, in one form: the
    full one, or the short one terse says (see :meth:`Kind.phrase`)."""

    running: str
    done: str
    failed: bool = False
    """Every action failed (see :meth:`Kind.all_failed`)."""
    failure: Failure | None = None
    """When some of several actions failed: the first failure."""
    details: list[str] = field(default_factory=list)
    """Extra sentences for the verbose preset (made for it only)."""
    listed: str = ""
    """The done form inside a list of different steps: the outcome in brackets (full form
    only)."""


def listed(core: str, tail: str) -> str:
    """``"searched for "x""`` and ``"; 2 files matched"`` -> ``searched for "x" (2 files
    matched)``, for a sentence that lists several steps."""
    return f"{core} ({tail.removeprefix('; ')})" if tail else core


def unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


_PROSE_WORDS = 12


def _prose(value: str) -> bool:
    """Free text (several lines, or more than a dozen words), not a name to quote."""
    return "\n" in value.strip() or value.count(" ") >= _PROSE_WORDS


class Kind:
    """A tool kind's wording; subclasses override what differs from the generic tool."""

    verbs: Verbs = ("use", "used", "using")
    nouns = ("step", "steps")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        """What a single use was about: a path, a command, a pattern, a query..."""
        label = tool_label(action.tool)
        for key in (*SALIENT_KEYS, *action.input):
            value = action.input.get(key)
            if isinstance(value, str) and (value.lstrip()[:1] in ("{", "[") or _prose(value)):
                continue  # raw JSON or a paragraph (an MCP tool's "thought") names nothing
            if isinstance(value, int | float) and key not in SALIENT_KEYS:
                continue  # "on 3" (a thoughtNumber) says nothing either
            if isinstance(value, str | int | float) and str(value).strip():
                return f"{label} on {clip_middle(str(value), 24 if short else 50)}"
        return label

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        names = unique([self.one(action, cwd, short) for action in actions])
        if len(names) == 1:
            return names[0]
        if short:  # never just "2 commands" when one can be named
            return f"{names[0]} and {len(names) - 1} more"
        if len(names) == 2:
            return join_list(names)
        return f"{plural(len(names), *self.nouns)}: {join_list(names)}"

    def verbs_for(self, actions: list[Action]) -> Verbs:
        return self.verbs

    def outcome(self, actions: list[Action], short: bool) -> str:
        """What came of finished actions, as a tail: ``"; 2 failed"``."""
        if len(actions) == 1:
            return ""  # one action: its failure, if any, is the whole phrase ("tried to ...")
        failed = sum(action.is_error for action in actions)
        return f"; {failed} failed" if failed else ""

    def all_failed(self, actions: list[Action]) -> bool:
        """Told as "I tried to X, but it failed: why" (or "but all 3 failed"). A kind may
        narrow it, never widen it: a batch with an action that did not fail is never all
        failed."""
        return all(action.is_error for action in actions)

    def details(self, actions: list[Action], cwd: str | None) -> list[str]:
        return []

    def failed(
        self, actions: list[Action], obj: str, obj_short: str, reason: str
    ) -> tuple[str, str]:
        """Done and short forms when every action failed."""
        base = self.verbs_for(actions)[0]
        every = "it" if len(actions) == 1 else f"all {len(actions)}"
        return (
            f"tried to {base} {obj}, but {every} failed: {reason}",
            f"couldn't {base} {obj_short}",
        )

    def phrase(
        self, actions: list[Action], cwd: str | None, short: bool = False, verbose: bool = False
    ) -> Phrase:
        """The wording of ``actions``, full or ``short``: a preset says only one of the two
        (terse the short one), so only that one is made; with the details when ``verbose``,
        the one preset that says them. ``actions`` are one clause's: all running, or all
        finished (so the first tells which)."""
        base, past, gerund = self.verbs_for(actions)
        obj = self.many(actions, cwd, short)
        running = f"{gerund} {obj}"
        if actions[0].running:
            return Phrase(running, running)
        failed = [action for action in actions if action.is_error]
        every = len(failed) == len(actions)
        # A declined call is a failed one: only an all-failed batch can be all declined.
        if every and all(action.declined for action in actions):
            but = "; you declined" if short else ", but you declined"
            return Phrase(running, f"wanted to {base} {obj}{but}", self.all_failed(actions))
        all_failed = every and self.all_failed(actions)  # (which kinds only narrow)
        details = self.details(actions, cwd) if verbose else []
        reason = (error_excerpt(failed[0].output or "") or "no reason given") if failed else ""
        if all_failed:
            # Of the two forms, only the one asked is read: it names ``obj`` as it was made.
            done, done_short = self.failed(actions, obj, obj, reason)
            return Phrase(running, done_short if short else done, all_failed, details=details)
        failure = None
        if failed:
            first = failed[0]
            one_short = self.one(first, cwd, True)
            failure = Failure(
                f"{self.verbs[2]} {self.one(first, cwd, False)}",
                self.failed([first], one_short, one_short, reason)[1],
                reason,
            )
        done, tail = f"{past} {obj}", self.outcome(actions, short)
        return Phrase(
            running,
            done + tail,
            failure=failure,
            details=details,
            listed="" if short else listed(done, tail),
        )
