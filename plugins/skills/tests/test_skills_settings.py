"""The skills plugin reads its settings from the session it runs in."""

from __future__ import annotations

from pathlib import Path

from monologue_skills.settings import SkillsSettings
from pytest_monologue import PluginSandbox
from skills_fixtures import python_tool

from monologue import SkillCall


def test_a_sessions_tools_dir_is_honoured(
    skills_pm: PluginSandbox, tools_dir: Path, tmp_path: Path
) -> None:
    own = tmp_path / "own-tools"
    own.mkdir()
    python_tool(own, "only_here", "reply(output={'where': 'own'})")
    python_tool(tools_dir, "elsewhere", "reply()")

    with skills_pm.session("coder", tools_dir=str(own)) as session:
        assert session.config.settings(SkillsSettings).tools_dir == own
        assert session.config.source("tools_dir") == "session() arguments"
        names = set(skills_pm.hooks.skills())
        result = skills_pm.hooks.execute_skill(session, SkillCall(name="only_here", id="1"), None)

    assert "only_here" in names and "elsewhere" not in names
    assert result.ok, result.error
    assert result.output == {"where": "own"}
    # Outside the session the configured folder (MONOLOGUE_TOOLS_DIR) is back in force.
    outside = set(skills_pm.hooks.skills())
    assert "elsewhere" in outside and "only_here" not in outside
