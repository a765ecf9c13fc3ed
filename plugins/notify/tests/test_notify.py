"""The notify skill: stderr without a desktop, notify-send with one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from monologue_skills.state import SkillState
from pytest_monologue import PluginSandbox

from monologue import SkillCall, SkillResult


@pytest.fixture
def skills_pm(monologue_plugins: PluginSandbox) -> PluginSandbox:
    """This distribution loaded through its real entry point, as a user's install finds it."""
    monologue_plugins.load("notify")
    return monologue_plugins


def run(pm: PluginSandbox, name: str, state: SkillState | None = None, **args: Any) -> SkillResult:
    return pm.hooks.execute_skill(None, SkillCall(name=name, args=args, id="t"), state)


def test_only_this_skill_is_registered(skills_pm: PluginSandbox) -> None:
    assert {spec.name: spec.plugin for spec in skills_pm.hooks.skills().values()} == {
        "notify": "notify"
    }


def test_notify_without_a_desktop_writes_to_stderr(
    skills_pm: PluginSandbox, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    result = run(skills_pm, "notify", title="build", message="tests pass")
    assert result.ok and result.output["channel"] == "stderr"
    assert capsys.readouterr().err == "[build] tests pass\n"


def test_notify_uses_the_desktop_when_there_is_one(
    skills_pm: PluginSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = tmp_path / "calls"
    fake = tmp_path / "bin" / "notify-send"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\nprintf "%s|" "$@" > {calls}\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    monkeypatch.setenv("DISPLAY", ":0")
    result = run(skills_pm, "notify", title="build", message="tests pass", urgency="low")
    assert result.ok and result.output["channel"] == "desktop"
    assert calls.read_text() == "-u|low|build|tests pass|"
