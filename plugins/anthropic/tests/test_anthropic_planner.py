"""The Haiku planner through the real anthropic SDK and the loopback Messages API server,
asked the way monologue-skills asks: a valid plan, a repaired one, a fallback."""

from __future__ import annotations

import json
import logging
from typing import Any

import monologue_skills
import pytest
from monologue_anthropic.planner import TOOL_NAME
from monologue_skills.planning import PlanContext, make_plan
from pytest_monologue import PluginSandbox
from pytest_monologue.anthropic import LoopbackAPI, Reply

GOOD = {
    "actions": [
        {"id": "board", "skill": "status", "parameters": {"task": "fix login"}, "depends_on": []},
        {
            "id": "tell",
            "skill": "notify",
            "parameters": {"message": "on it"},
            "depends_on": ["board"],
        },
    ]
}
BAD = {"actions": [{"id": "x", "skill": "teleport", "parameters": {}, "depends_on": ["y"]}]}


def submitted(plan: Any, use_id: str = "toolu_1") -> Reply:
    return Reply.blocks(
        {"type": "tool_use", "id": use_id, "name": TOOL_NAME, "input": plan},
        stop_reason="tool_use",
    )


@pytest.fixture
def planners(monologue_plugins: PluginSandbox, loopback_api: LoopbackAPI) -> PluginSandbox:
    monologue_plugins.load("anthropic")
    monologue_plugins.register(monologue_skills, "skills")
    monologue_plugins.load("speak", "notify", "status", "webhook")  # the first-party skills
    return monologue_plugins


def context(pm: PluginSandbox) -> PlanContext:
    events = [{"type": "tool_call", "data": {"tool_name": "Edit", "input": {"path": "a.py"}}}]
    return PlanContext(
        goal="fix login",
        events=events,
        history=["I opened the login form."],
        state={"api_key": "sk-ant-api03-secretsecretsecret"},
        skills=pm.hooks.skills(),
    )


def test_a_valid_plan_is_used(planners: PluginSandbox, loopback_api: LoopbackAPI) -> None:
    loopback_api.script(submitted(GOOD))
    plan, by = make_plan(planners.pm, context(planners))
    assert by == "anthropic"
    assert [(a.id, a.skill, a.depends_on) for a in plan.actions] == [
        ("board", "status", []),
        ("tell", "notify", ["board"]),
    ]
    (request,) = loopback_api.requests
    body = request.body or {}
    assert body["tool_choice"] == {"type": "tool", "name": TOOL_NAME}
    assert body["tools"][0]["input_schema"]["required"] == ["actions"]
    assert "submit_plan" in request.system
    assert "fix login" in request.user_text and '"name": "webhook"' in request.user_text
    assert "I opened the login form." in request.user_text
    assert "secretsecret" not in json.dumps(body)


def test_an_invalid_plan_is_repaired_on_the_second_try(
    planners: PluginSandbox, loopback_api: LoopbackAPI
) -> None:
    loopback_api.script(submitted(BAD, "toolu_bad"), submitted(GOOD, "toolu_good"))
    plan, by = make_plan(planners.pm, context(planners))
    assert by == "anthropic" and [a.id for a in plan.actions] == ["board", "tell"]
    _, second = loopback_api.requests
    messages = (second.body or {})["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    feedback = messages[2]["content"][0]
    assert feedback["type"] == "tool_result" and feedback["tool_use_id"] == "toolu_bad"
    assert "unknown skill 'teleport'" in feedback["content"]
    assert "depends on unknown action 'y'" in feedback["content"]


def test_invalid_twice_falls_back_to_the_offline_planner(
    planners: PluginSandbox, loopback_api: LoopbackAPI, caplog: pytest.LogCaptureFixture
) -> None:
    loopback_api.script(submitted(BAD), Reply.ok("I would rather chat."))
    with caplog.at_level(logging.WARNING, "monologue"):
        plan, by = make_plan(planners.pm, context(planners))
    assert by == "skills"  # the offline planner's hook answered
    assert [a.skill for a in plan.actions] == ["status", "notify"]
    assert len(loopback_api.requests) == 2
    assert any("repaired answer is not a valid plan" in r.getMessage() for r in caplog.records)


def test_an_api_failure_falls_back(planners: PluginSandbox, loopback_api: LoopbackAPI) -> None:
    loopback_api.script(Reply.error(400, "bad request"))
    plan, by = make_plan(planners.pm, context(planners))
    assert by == "skills" and plan.actions[0].skill == "status"


def test_without_a_key_the_planner_passes(
    planners: PluginSandbox, loopback_api: LoopbackAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert make_plan(planners.pm, context(planners))[1] == "skills"
    assert loopback_api.requests == []
