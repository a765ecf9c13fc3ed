"""Plans: validation reports every problem at once; execution order, concurrency, skips."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from monologue_skills.errors import PlanValidationError
from monologue_skills.executor import run_plan
from monologue_skills.models import Plan
from monologue_skills.state import SkillState, StateStore
from monologue_skills.validation import check_plan
from pytest_monologue import PluginSandbox

from monologue import SkillCall, SkillResult, hookimpl


class Recorder:
    """In-process skills that record when they ran; ``fail`` fails, ``slow`` sleeps."""

    def __init__(self) -> None:
        self.log: list[tuple[str, str, float]] = []
        self.lock = threading.Lock()
        self.running = 0
        self.peak = 0

    @hookimpl
    def register_skills(self, register: Any) -> None:
        register("work", parameters={"type": "object", "properties": {"n": {"type": "integer"}}})
        register("fail")
        register("slow")

    @hookimpl
    def execute_skill(self, call: SkillCall, state: SkillState) -> SkillResult:
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
            self.log.append((call.id, "start", time.monotonic()))
        if call.name == "slow":
            time.sleep(0.2)
        if call.name == "work":
            state.change([{"op": "add", "path": f"/{call.id}", "value": call.args.get("n", 0)}])
        with self.lock:
            self.running -= 1
            self.log.append((call.id, "end", time.monotonic()))
        if call.name == "fail":
            return SkillResult(ok=False, error="it broke")
        return SkillResult(ok=True, output=call.id)


@pytest.fixture
def recorder(skills_pm: PluginSandbox) -> Recorder:
    return skills_pm.register(Recorder(), "recorder")  # type: ignore[no-any-return]


def act(
    id: str, skill: str = "work", deps: list[str] | None = None, **params: Any
) -> dict[str, Any]:
    return {"id": id, "skill": skill, "parameters": params, "depends_on": deps or []}


def test_validation_reports_every_problem_with_action_and_path(
    skills_pm: PluginSandbox, recorder: Recorder
) -> None:
    candidate = {
        "actions": [
            act("a", n="three"),
            act("a"),
            act("b", skill="teleport"),
            act("c", deps=["ghost"]),
            act("d", deps=["e"]),
            act("e", deps=["d"]),
            {"skill": "work"},
            act("f", skill="speak", volume=11),
        ]
    }
    plan, problems = check_plan(candidate, skills_pm.hooks.skills())
    assert plan is None
    expected = [
        "action 'a' (actions[0].parameters.n): 'three' is not of type 'integer'",
        "action 'a' (actions[1].id): duplicate id, also used by actions[0]",
        "action 'b' (actions[2].skill): unknown skill 'teleport'",
        "action 'c' (actions[3].depends_on[0]): depends on unknown action 'ghost'",
        "actions depend on each other in a cycle",
        "action #6 (actions[6].id): Field required",
        "action 'f' (actions[7].parameters): 'text' is a required property",
        "action 'f' (actions[7].parameters): Additional properties are not allowed",
    ]
    for fragment in expected:
        assert any(fragment in p for p in problems), (fragment, problems)
    assert len(problems) == len(expected)


def test_a_plan_that_is_not_an_object_is_refused() -> None:
    assert check_plan([1, 2], {}) == (
        None,
        ['the plan must be a JSON object with a list "actions"'],
    )
    _, problems = check_plan({"actions": [], "extra": 1}, {})
    assert problems == ["the plan has unknown field(s): extra"]


def test_run_plan_refuses_an_invalid_plan_before_running_anything(
    skills_pm: PluginSandbox, recorder: Recorder
) -> None:
    plan = Plan.model_validate({"actions": [act("a"), act("b", skill="nope")]})
    with pytest.raises(PlanValidationError, match="unknown skill 'nope'"):
        run_plan(plan, pm=skills_pm.pm, store=StateStore())
    assert recorder.log == []


def test_dependency_order_bounded_concurrency_and_state(
    skills_pm: PluginSandbox, recorder: Recorder
) -> None:
    plan = Plan.model_validate(
        {
            "actions": [
                act("s1", skill="slow"),
                act("s2", skill="slow"),
                act("s3", skill="slow"),
                act("last", deps=["s1", "s2", "s3"], n=7),
            ]
        }
    )
    store = StateStore()
    report = run_plan(plan, pm=skills_pm.pm, store=store, concurrency=2)
    assert report.ok
    assert recorder.peak == 2
    ends = {i: t for i, what, t in recorder.log if what == "end"}
    start_last = next(t for i, what, t in recorder.log if i == "last" and what == "start")
    assert start_last >= max(ends["s1"], ends["s2"], ends["s3"])
    assert store.document() == {"last": 7}
    assert [r.id for r in report.results] == ["s1", "s2", "s3", "last"]


def test_failure_skips_dependents_and_the_others_go_on(
    skills_pm: PluginSandbox, recorder: Recorder
) -> None:
    plan = Plan.model_validate(
        {
            "actions": [
                act("broken", skill="fail"),
                act("child", deps=["broken"]),
                act("grandchild", deps=["child"]),
                act("other", n=1),
            ]
        }
    )
    report = run_plan(plan, pm=skills_pm.pm, store=StateStore())
    by_id = {r.id: r for r in report.results}
    assert (by_id["broken"].status, by_id["broken"].error) == ("failed", "it broke")
    assert by_id["child"].status == "skipped"
    assert by_id["child"].error == "depends on 'broken', which failed"
    assert by_id["grandchild"].error == "depends on 'child', which skipped"
    assert by_id["other"].status == "succeeded"
    assert [i for i, what, _ in recorder.log if what == "start"].count("child") == 0


def test_cancelled_plan_skips_what_has_not_started(
    skills_pm: PluginSandbox, recorder: Recorder
) -> None:
    cancel = threading.Event()
    threading.Timer(0.05, cancel.set).start()
    plan = Plan.model_validate({"actions": [act("s", skill="slow"), act("w", deps=["s"])]})
    report = run_plan(plan, pm=skills_pm.pm, store=StateStore(), cancel=cancel)
    assert [r.status for r in report.results] == ["succeeded", "skipped"]
    assert report.results[1].error == "the plan was cancelled"


def test_executed_actions_are_tool_events_named_for_their_skill(
    skills_pm: PluginSandbox, recorder: Recorder
) -> None:
    seen: list[Any] = []

    class Watcher:
        @hookimpl
        def on_event(self, event: Any) -> None:
            if event.type in {"tool_call", "tool_result"}:
                seen.append(event)

    skills_pm.register(Watcher(), "watcher")
    plan = Plan.model_validate({"actions": [act("ok", n=2), act("bad", skill="fail")]})
    with skills_pm.session(narrator="none") as session:
        run_plan(plan, pm=skills_pm.pm, store=StateStore(), session=session, concurrency=1)
    calls = [(e.type, e.data["tool_name"]) for e in seen]
    assert calls == [
        ("tool_call", "work"),
        ("tool_result", "work"),
        ("tool_call", "fail"),
        ("tool_result", "fail"),
    ]
    assert seen[0].data["input"] == {"n": 2}
    assert seen[1].data["is_error"] is False and seen[1].data["output"] == "ok"
    assert seen[3].data["is_error"] is True and seen[3].data["output"] == "it broke"


def test_changes_that_do_not_apply_fail_the_action_and_keep_the_state(
    skills_pm: PluginSandbox, recorder: Recorder
) -> None:
    store = StateStore()
    store.apply([{"op": "add", "path": "/kept", "value": 1}], skill="s", action_id="0")
    # "work" adds /<action id>: here /nested/deep, whose parent does not exist.
    plan = Plan.model_validate({"actions": [act("nested/deep", n=1)]})
    report = run_plan(plan, pm=skills_pm.pm, store=store)
    (result,) = report.results
    assert result.status == "failed"
    assert "stateChanges of 'work' (action 'nested/deep') do not apply" in (result.error or "")
    assert store.document() == {"kept": 1}
