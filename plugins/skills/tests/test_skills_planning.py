"""The ``plan`` hook: first answer wins, answers are validated, the offline planner falls in."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from monologue_skills.planning import PlanContext, make_plan
from pytest_monologue import PluginSandbox

from monologue import hookimpl


class FixedPlanner:
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.contexts: list[PlanContext] = []

    @hookimpl
    def plan(self, context: PlanContext) -> Any:
        self.contexts.append(context)
        return self.answer


def context(pm: PluginSandbox, **fields: Any) -> PlanContext:
    return PlanContext(goal="fix the login bug", skills=pm.hooks.skills(), **fields)


def test_offline_planner_is_the_default(skills_pm: PluginSandbox) -> None:
    events = [
        {
            "type": "tool_call",
            "data": {"tool_name": "Edit", "input": {"file_path": "app/login.py"}},
        },
        {"type": "tool_call", "data": {"tool_name": "Read", "input": {"path": "README.md"}}},
        {"type": "text", "data": {"text": "done"}},
    ]
    plan, planner = make_plan(skills_pm.pm, context(skills_pm, events=events))
    assert planner == "skills"
    assert [(a.id, a.skill, a.depends_on) for a in plan.actions] == [
        ("status", "status", []),
        ("notify", "notify", ["status"]),
    ]
    assert plan.actions[0].parameters == {
        "task": "fix the login bug",
        "files_touched": ["app/login.py", "README.md"],
    }
    # Deterministic: the same context, the same plan.
    assert make_plan(skills_pm.pm, context(skills_pm, events=events))[0] == plan


def test_first_planner_to_answer_wins(skills_pm: PluginSandbox) -> None:
    mine = {"actions": [{"id": "say", "skill": "notify", "parameters": {"message": "hi"}}]}
    planner = skills_pm.register(FixedPlanner(mine), "mine")
    plan, by = make_plan(skills_pm.pm, context(skills_pm, state={"k": 1}))
    assert by == "mine" and [a.id for a in plan.actions] == ["say"]
    assert planner.contexts[0].state == {"k": 1} and "speak" in planner.contexts[0].skills


def test_a_planner_passing_lets_the_next_answer(skills_pm: PluginSandbox) -> None:
    skills_pm.register(FixedPlanner(None), "shy")
    assert make_plan(skills_pm.pm, context(skills_pm))[1] == "skills"


def test_an_invalid_answer_falls_back_to_the_offline_plan(
    skills_pm: PluginSandbox, caplog: pytest.LogCaptureFixture
) -> None:
    bad = {"actions": [{"id": "x", "skill": "teleport"}]}
    skills_pm.register(FixedPlanner(bad), "wild")
    with caplog.at_level(logging.WARNING, "monologue.skills"):
        plan, by = make_plan(skills_pm.pm, context(skills_pm))
    assert by == "offline" and plan.actions[0].skill == "status"
    assert any(
        "'wild' gave an invalid plan" in r.getMessage()
        and "unknown skill 'teleport'" in r.getMessage()
        for r in caplog.records
    )


def test_check_gives_the_problems(skills_pm: PluginSandbox) -> None:
    plan, problems = context(skills_pm).check({"actions": [{"id": "s", "skill": "speak"}]})
    assert plan is None
    assert problems == ["action 's' (actions[0].parameters): 'text' is a required property"]


def test_pursue_plans_from_the_session_and_narrates_the_actions(
    skills_pm: PluginSandbox,
) -> None:
    from monologue_skills.planning import pursue, session_store

    planner = skills_pm.register(FixedPlanner(None), "observer")
    tools: list[str] = []

    class Watcher:
        @hookimpl
        def on_tool_call(self, event: Any) -> None:
            tools.append(event.data["tool_name"])

    skills_pm.register(Watcher(), "watcher")
    events = [{"type": "tool_call", "data": {"input": {"file_path": "src/app.py"}}}]
    with skills_pm.session(narrator="none") as session:
        session.history.append("I read the failing test.")
        store = session_store(session)
        assert session_store(session) is store  # one store per session
        plan, by, report = pursue(session, "fix the test", pm=skills_pm.pm, events=events)
    assert by == "skills" and report.ok
    assert planner.contexts[0].history == ["I read the failing test."]
    assert store.document()["status"] == {"task": "fix the test", "files_touched": ["src/app.py"]}
    assert tools == ["status", "notify"]
    assert [a.id for a in plan.actions] == ["status", "notify"]
