"""Run a validated plan: dependency order, bounded concurrency, atomic state per action.

An action whose dependency did not succeed is skipped with the reason; the other actions go
on. Each executed action is a ``tool_call`` / ``tool_result`` pair named for its skill in
the session, so it is narrated and recorded like any agent work. The state store is held for
the whole plan, so plans on one state file run one after the other.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING

from monologue import Session, SkillCall, SkillResult

from .errors import PlanValidationError, StateChangeError
from .models import Action, ActionResult, Plan, PlanReport
from .state import SkillState, StateStore
from .validation import check_plan

if TYPE_CHECKING:
    from monologue.plugins import MonologuePluginManager

__all__ = ["PlanProgress", "run_plan"]


@dataclass(frozen=True)
class PlanProgress:
    """Where a running plan is: told to ``run_plan``'s ``on_progress`` each time an action
    starts or ends, from the thread that called ``run_plan`` (never an action's)."""

    done: int
    """Actions finished or skipped."""
    total: int
    running: tuple[str, ...]
    """The ids of the actions running now."""


def _run_action(
    pm: MonologuePluginManager,
    session: Session | None,
    store: StateStore,
    action: Action,
    cancel: threading.Event,
) -> ActionResult:
    started = time.monotonic()
    use_id = None
    if session is not None:
        use_id = session.tool_call(action.skill, dict(action.parameters)).data["tool_use_id"]
    handle = SkillState(store.document(), cancel)
    call = SkillCall(name=action.skill, args=action.parameters, id=action.id)
    result = pm.hooks.execute_skill(session, call, handle)
    if result.ok and handle.changes:
        try:
            store.apply(handle.changes, skill=action.skill, action_id=action.id)
        except StateChangeError as exc:
            result = SkillResult(ok=False, output=result.output, error=str(exc))
    if session is not None and use_id is not None:
        shown = result.output if result.ok else result.error
        session.tool_result(use_id, output=shown, is_error=not result.ok)
    return ActionResult(
        id=action.id,
        skill=action.skill,
        status="succeeded" if result.ok else "failed",
        output=result.output,
        error=result.error,
        duration_s=time.monotonic() - started,
    )


def _skip_reason(
    action: Action, results: dict[str, ActionResult], cancel: threading.Event
) -> str | None:
    for dep in action.depends_on:
        if dep in results and results[dep].status != "succeeded":
            return f"depends on {dep!r}, which {results[dep].status}"
    return "the plan was cancelled" if cancel.is_set() else None


def run_plan(
    plan: Plan,
    *,
    pm: MonologuePluginManager,
    store: StateStore,
    session: Session | None = None,
    concurrency: int = 4,
    cancel: threading.Event | None = None,
    on_progress: Callable[[PlanProgress], None] | None = None,
) -> PlanReport:
    """Validate ``plan`` against the registered skills, then run it; a report per action."""
    checked, problems = check_plan(plan, pm.hooks.skills())
    if checked is None:
        raise PlanValidationError(problems)
    cancel = cancel or threading.Event()
    results: dict[str, ActionResult] = {}
    waiting = {action.id: action for action in checked.actions}
    running: dict[Future[ActionResult], str] = {}

    def tell() -> None:
        if on_progress is not None:
            on_progress(PlanProgress(len(results), len(checked.actions), tuple(running.values())))

    limit = max(1, concurrency)
    with store.locked(), ThreadPoolExecutor(limit) as pool:
        try:
            while waiting or running:
                before = (len(results), len(running))
                for action_id, action in list(waiting.items()):
                    reason = _skip_reason(action, results, cancel)
                    if reason is not None:
                        del waiting[action_id]
                        results[action_id] = ActionResult(
                            id=action_id, skill=action.skill, status="skipped", error=reason
                        )
                    elif len(running) < limit and all(dep in results for dep in action.depends_on):
                        # No more than the pool runs at once: `running` is what runs now.
                        del waiting[action_id]
                        future = pool.submit(_run_action, pm, session, store, action, cancel)
                        running[future] = action_id
                if (len(results), len(running)) != before:
                    tell()
                if running:
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in done:
                        results[running.pop(future)] = future.result()
                    tell()
        except BaseException:
            # Ctrl-C (or a bug) here: the running skills see the cancel and stop their tools
            # before the pool's exit waits for them.
            cancel.set()
            raise
    return PlanReport(results=[results[action.id] for action in checked.actions])
