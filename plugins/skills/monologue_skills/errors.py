"""The skill system's errors; each message names the input and what is wrong with it."""

from __future__ import annotations

from monologue.errors import MonologueError

__all__ = [
    "PlanValidationError",
    "SkillFailed",
    "SkillsError",
    "StateChangeError",
    "StateFileError",
]


class SkillsError(MonologueError):
    """Base class of monologue-skills errors."""


class StateFileError(SkillsError):
    """The state file cannot be read or locked."""


class StateChangeError(SkillsError):
    """A change set cannot apply to the state; the state is left as it was."""


class PlanValidationError(SkillsError):
    """A plan has problems; ``problems`` lists every one, each naming its action and path."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        if len(problems) == 1:  # one line, as every other command error is
            super().__init__(f"the plan cannot run (nothing was run): {problems[0]}")
            return
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(
            f"the plan cannot run ({len(problems)} problems; nothing was run):\n{lines}"
        )


class SkillFailed(SkillsError):
    """Raised by a first-party skill's handler: the action failed, for the reason given."""
