"""The speak skill, with the real espeak-ng when it is installed."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from monologue_skills.state import SkillState
from pytest_monologue import PluginSandbox

from monologue import SkillCall, SkillResult


@pytest.fixture
def skills_pm(monologue_plugins: PluginSandbox) -> PluginSandbox:
    """This distribution loaded through its real entry point, as a user's install finds it."""
    monologue_plugins.load("speak")
    return monologue_plugins


def run(pm: PluginSandbox, name: str, state: SkillState | None = None, **args: Any) -> SkillResult:
    return pm.hooks.execute_skill(None, SkillCall(name=name, args=args, id="t"), state)


def test_only_this_skill_is_registered(skills_pm: PluginSandbox) -> None:
    assert {spec.name: spec.plugin for spec in skills_pm.hooks.skills().values()} == {
        "speak": "speak"
    }


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_speak_writes_speech_with_espeak_ng(skills_pm: PluginSandbox, tmp_path: Path) -> None:
    wav = tmp_path / "said.wav"
    result = run(skills_pm, "speak", text="Tests pass.", wav=str(wav))
    assert result.ok, result.error
    assert wav.read_bytes()[:4] == b"RIFF" and wav.stat().st_size > 1000


def test_speak_without_espeak_ng_says_how_to_get_it(
    skills_pm: PluginSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    result = run(skills_pm, "speak", text="hello")
    assert not result.ok
    assert result.error == (
        "speak needs espeak-ng, which is not installed (Debian: apt-get install espeak-ng)"
    )


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_speak_reports_an_espeak_ng_failure(skills_pm: PluginSandbox, tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "dir.wav"
    unwritable = run(skills_pm, "speak", text="hi", wav=str(target))
    assert not unwritable.ok
    assert unwritable.error == f"espeak-ng wrote no file at {target}: Can't write to: '{target}'"
    no_voice = run(skills_pm, "speak", text="hi", voice="zz-nope", wav=str(tmp_path / "v.wav"))
    assert no_voice.error == (
        "espeak-ng failed (1): Error: The specified espeak-ng voice does not exist."
    )
