"""The hooks monologue-skills owns, added to the plugin manager when it registers
(``register_hookspecs``). Another plugin implementing them marks its implementation
``@hookimpl(optionalhook=True)``: without monologue-skills it loads and is never called.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from monologue import hookspec

if TYPE_CHECKING:
    from monologue import Session, SkillSpec

__all__ = ["plan", "register_skills"]


@hookspec
def register_skills(register: Callable[..., SkillSpec]) -> None:
    """Declare skills: call ``register(name, description=..., parameters=...)`` per skill."""


@hookspec(firstresult=True)
def plan(session: Session | None, context: Any) -> Any:
    """Propose a plan for ``context`` (first answer wins), or ``None`` to let the next planner.

    Fires when monologue-skills needs a plan (``monologue skills plan --goal``, or a caller of
    its planning API). ``context`` carries the goal, recent events, narrative history, the
    session's state and the registered skills, a ``check(candidate)`` method giving
    ``(plan, problems)`` and ``plan_schema()`` (the plan's JSON Schema). Return a ``Plan``
    (or a mapping of its shape,
    ``{"actions": [{"id", "skill", "parameters", "depends_on"}]}``); the caller validates it
    again before anything runs. An exception is reported and the next planner is asked.
    """
