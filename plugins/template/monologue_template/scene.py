"""What the narrator works with: the scene (the session as plain data) and clauses (things
it may say, ranked by priority)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from .actions import Memory
from .wording import capitalize, clip, full_stop, sentence

if TYPE_CHECKING:
    from collections.abc import Callable

    from monologue.events import Event

__all__ = [
    "ENDING",
    "ERROR",
    "LOW",
    "SAY",
    "TERSE_WORDS",
    "TESTS",
    "WORK",
    "Clause",
    "Scene",
    "lower_first",
    "subject_of",
]

ENDING, ERROR, TESTS, WORK, SAY, LOW = 5, 4, 3, 2, 1, 0
_HEX_NAME = re.compile(r"^(?:agent-)?[0-9a-f]{6,}$")
TERSE_WORDS = 10
_REPEATS = ("", "Again, ", "Once more, ")


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
    memory: Memory = field(default_factory=Memory)
    after_digest: bool = False
    """The batch follows a digest of folded events (which counts their calls)."""
    redacted: bool = False
    """The events were redacted already: the pipeline's batch, which the ``narrate`` hook
    is given (each event went through ``scrub`` before any hook saw it)."""


@dataclass(slots=True)
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
    """How it reads among other steps in one sentence (see ``compose._merge_routine``)."""
    rank: int = 0
    """How much a routine step matters when a list has no room for all (edits first)."""
    intention: bool = False
    """The agent saying what it is about to do ("Let me run the tests")."""
    named: bool = False
    """It names a concrete subject (a file, a command, a URL...): terse prefers those (an
    action's clause is tested only for terse, the one preset that reads it)."""
    end: float | None = None
    """Where its latest step happened (``None``: at ``order``), for "last, ..."."""
    latest: Callable[[], str] | None = None
    """The short form of its latest step alone, made only when asked (one of a group)."""

    @property
    def last(self) -> float:
        return self.order if self.end is None else self.end

    def render(self, short: bool = False, variant: int = 0) -> str:
        """As a sentence; ``variant`` 1 or 2 says it again ("Again, ...", "Once more, ...")."""
        body = self.short if short else self.text
        again = _REPEATS[variant]
        if self.subject is None:
            return sentence(again + (lower_first(body) if again else body))
        # Capitalised already (the subject, or "Again"): only the full stop is left to add.
        if self.running:
            still = " still" if variant else ""
            verb = "'m" if self.subject == "I" else " is"
            return full_stop(f"{capitalize(self.subject)}{verb}{still} {body}".rstrip())
        subject = self.subject if again else capitalize(self.subject)
        return full_stop(f"{again}{subject} {body}".rstrip())


def subject_of(scene: Scene, agent: str) -> str:
    """Who acted: "I"; my sub-agent, named ``parent/task`` ("my "Find it" sub-agent"), by
    its task, never by a hex id; or another agent by name. In a sub-agent's own transcript
    (the session's agent never acted, one sub-agent did) that sub-agent is "I"."""
    if not agent or agent == scene.agent:
        return "I"
    if "/" in agent:
        name = agent.rsplit("/", 1)[-1]
        if _HEX_NAME.match(name):
            acted = scene.memory.acted
            return "I" if scene.agent not in acted and acted <= {agent} else "my sub-agent"
        return f'my "{clip(name, 40)}" sub-agent'
    return f"the {agent} agent"


def lower_first(text: str) -> str:
    if text[:2] in ("I ", "I'") or text[:1] in "`\"'":
        return text
    return text[:1].lower() + text[1:]
