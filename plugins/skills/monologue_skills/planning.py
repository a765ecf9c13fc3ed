"""Ask the planners for a plan: the ``plan`` hook, first answer wins, validated here again.

:func:`pursue` is the whole loop for a session: context, plan, validated execution, state
update, narration of the actions. A planner gets a :class:`PlanContext`: the goal, recent
events, narrative history, the state and the registered skills, and
:meth:`PlanContext.check` to validate a candidate (so a model-backed planner can repair its
answer). An answer that is still invalid is replaced by the offline planner's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from monologue import Session, SkillSpec

from .errors import PlanValidationError
from .executor import PlanProgress, run_plan
from .models import Plan, PlanReport
from .offline import offline_plan
from .state import StateStore
from .validation import check_plan

if TYPE_CHECKING:
    from monologue.plugins import MonologuePluginManager

__all__ = ["PlanContext", "make_plan", "pursue", "session_store"]

log = logging.getLogger("monologue.skills.planning")


class PlanContext(BaseModel):
    """What a planner plans from."""

    model_config = ConfigDict(extra="forbid")

    goal: str
    events: list[dict[str, Any]] = Field(default_factory=list)
    history: list[str] = Field(default_factory=list)
    state: dict[str, Any] = Field(default_factory=dict)
    skills: dict[str, SkillSpec] = Field(default_factory=dict)

    def plan_schema(self) -> dict[str, Any]:
        """The JSON Schema of a plan, for planners that ask a model for structured output."""
        return Plan.model_json_schema()

    def check(self, candidate: Any) -> tuple[Plan | None, list[str]]:
        """``(plan, [])`` when ``candidate`` is a valid plan for these skills, else the problems."""
        return check_plan(candidate, self.skills)


def make_plan(
    pm: MonologuePluginManager, context: PlanContext, session: Session | None = None
) -> tuple[Plan, str]:
    """A valid plan for ``context`` and who made it (a plugin name, or ``"offline"``)."""
    answer, planner = pm.hooks.first("plan", session=session, context=context)
    if answer is not None:
        plan, problems = context.check(answer)
        if plan is not None:
            return plan, planner or "?"
        log.warning(
            "planner %r gave an invalid plan; using the offline planner:\n  %s",
            planner,
            "\n  ".join(problems),
        )
    fallback = offline_plan(context)
    plan, problems = context.check(fallback)
    if plan is None:
        raise PlanValidationError(problems)
    return plan, "offline"


def session_store(session: Session, path: Path | None = None) -> StateStore:
    """The session's state: one store per session, in memory or in the file at ``path``."""
    store = session.state.get("skills")
    if not isinstance(store, StateStore):
        store = session.state["skills"] = StateStore(path)
    return store


def pursue(
    session: Session,
    goal: str,
    *,
    pm: MonologuePluginManager,
    events: list[dict[str, Any]] | None = None,
    store: StateStore | None = None,
    concurrency: int = 4,
    on_progress: Callable[[PlanProgress], None] | None = None,
) -> tuple[Plan, str, PlanReport]:
    """Plan towards ``goal`` from the session's context and run the plan in the session.

    ``events`` are the recent events to plan from (JSON objects); the narrative history is
    the session's. Returns the plan, who made it and the report.
    """
    store = store or session_store(session)
    context = PlanContext(
        goal=goal,
        events=events or [],
        history=list(session.history),
        state=store.document(),
        skills=pm.hooks.skills(),
    )
    plan, planner = make_plan(pm, context, session)
    report = run_plan(
        plan, pm=pm, store=store, session=session, concurrency=concurrency, on_progress=on_progress
    )
    return plan, planner, report
