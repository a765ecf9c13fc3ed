"""The status skill: the board accumulates in the state."""

from __future__ import annotations

from typing import Any

import pytest
from monologue_skills.state import SkillState
from pytest_monologue import PluginSandbox

from monologue import SkillCall, SkillResult


@pytest.fixture
def skills_pm(monologue_plugins: PluginSandbox) -> PluginSandbox:
    """This distribution loaded through its real entry point, as a user's install finds it."""
    monologue_plugins.load("status")
    return monologue_plugins


def run(pm: PluginSandbox, name: str, state: SkillState | None = None, **args: Any) -> SkillResult:
    return pm.hooks.execute_skill(None, SkillCall(name=name, args=args, id="t"), state)


def test_only_this_skill_is_registered(skills_pm: PluginSandbox) -> None:
    assert {spec.name: spec.plugin for spec in skills_pm.hooks.skills().values()} == {
        "status": "status"
    }


def test_status_board_accumulates_in_the_state(skills_pm: PluginSandbox) -> None:
    state = SkillState({"status": {"task": "old", "files_touched": ["a.py"]}})
    result = run(
        skills_pm,
        "status",
        state,
        task="fix login",
        files_touched=["a.py", "b.py"],
        test_outcome="failed",
        test_summary="2 failed",
    )
    board = {
        "task": "fix login",
        "files_touched": ["a.py", "b.py"],
        "last_test": {"outcome": "failed", "summary": "2 failed"},
    }
    assert result.ok and result.output == board
    assert state.changes == [{"op": "add", "path": "/status", "value": board}]
