"""The registry: first-party skills, routing to the owning plugin, duplicate names, the CLI."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from monologue_skills import settings
from pytest_monologue import PluginSandbox
from skills_fixtures import only_skills_env, python_tool

from monologue import SkillCall, SkillResult, hookimpl


class Greeter:
    """A third-party skill plugin registered in-process."""

    @hookimpl
    def register_skills(self, register: Any) -> None:
        register("greet", description="Say hello", parameters={"type": "object"})

    @hookimpl
    def execute_skill(self, call: SkillCall) -> SkillResult:
        return SkillResult(ok=True, output=f"hello {call.args.get('who', 'you')}")


class Impostor:
    @hookimpl
    def register_skills(self, register: Any) -> None:
        register("greet")

    @hookimpl
    def execute_skill(self, call: SkillCall) -> SkillResult:
        return SkillResult(ok=True, output="impostor")


def test_first_party_skills_are_registered(skills_pm: PluginSandbox) -> None:
    specs = skills_pm.hooks.skills()
    assert {"speak", "notify", "status", "webhook"} <= set(specs)
    assert all(specs[name].plugin == name for name in ("speak", "status"))
    assert specs["speak"].parameters["required"] == ["text"]


def test_execute_skill_is_routed_to_the_owning_plugin(skills_pm: PluginSandbox) -> None:
    skills_pm.register(Greeter(), "greeter")
    result = skills_pm.hooks.execute_skill(None, SkillCall(name="greet", args={"who": "ada"}))
    assert result == SkillResult(ok=True, output="hello ada")
    # And the skills plugin's own skills still reach it, not the greeter.
    status = skills_pm.hooks.execute_skill(None, SkillCall(name="status", args={"task": "t"}))
    assert status.ok and status.output == {"task": "t"}


def test_two_plugins_registering_one_name_is_an_error_naming_both(
    skills_pm: PluginSandbox, caplog: pytest.LogCaptureFixture
) -> None:
    skills_pm.register(Greeter(), "greeter")
    skills_pm.register(Impostor(), "impostor")
    with caplog.at_level(logging.ERROR, "monologue"):
        specs = skills_pm.hooks.skills()
    message = " ".join(r.getMessage() for r in caplog.records)
    assert "'greet' is registered by both" in message
    assert "'greeter'" in message and "'impostor'" in message
    assert specs["greet"].plugin in {"greeter", "impostor"}


def test_unknown_skill_is_a_failure_naming_it(skills_pm: PluginSandbox) -> None:
    result = skills_pm.hooks.execute_skill(None, SkillCall(name="nope"))
    assert not result.ok and result.error == "unknown skill 'nope'"


def monologue_cli(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "monologue", *args],
        capture_output=True,
        text=True,
        env=only_skills_env(tmp_path, **env),
        cwd=tmp_path,
        timeout=60,
    )


def test_cli_list_shows_first_party_skills_and_tools(tmp_path: Path, tools_dir: Path) -> None:
    python_tool(tools_dir, "counter", "reply()")
    done = monologue_cli(tmp_path, "skills", "list", "--json", "--tools-dir", str(tools_dir))
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert rows["counter"]["description"] == "test tool counter"
    assert rows["speak"]["status"] == "ok"
    plain = monologue_cli(tmp_path, "skills", "list")  # ./tools, relative to the cwd
    assert "counter" in plain.stdout and "status" in plain.stdout


def test_cli_run_updates_the_state_file(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    done = monologue_cli(
        tmp_path,
        "skills",
        "run",
        "status",
        "--params",
        '{"task": "ship it"}',
        "--state",
        str(state),
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["results"][0]["status"] == "succeeded"
    saved = json.loads(state.read_text())
    assert saved["document"] == {"status": {"task": "ship it"}}
    assert saved["changes"][0]["skill"] == "status" and saved["changes"][0]["actionId"] == "status"


def test_cli_run_refuses_bad_parameters_with_the_reason(tmp_path: Path) -> None:
    done = monologue_cli(tmp_path, "skills", "run", "speak", "--params", '{"txt": 1}')
    assert done.returncode != 0
    assert "'text' is a required property" in done.stderr
    assert "action 'speak' (actions[0].parameters)" in done.stderr
    bad = monologue_cli(tmp_path, "skills", "run", "speak", "--params", "{nope")
    assert bad.returncode == 2 and "--params" in bad.stderr and "not JSON" in bad.stderr


def test_list_nl_prints_one_object_per_line(tmp_path: Path) -> None:
    done = monologue_cli(tmp_path, "skills", "list", "--nl")
    assert done.returncode == 0, done.stderr
    names = [json.loads(line)["name"] for line in done.stdout.splitlines()]
    assert {"speak", "notify", "status", "webhook"} <= set(names)


def test_a_bad_tool_setting_in_a_session_is_warned_about_and_runs_on_the_default(
    skills_pm: PluginSandbox,
    tools_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    python_tool(tools_dir, "counter", "reply()")
    monkeypatch.setenv("MONOLOGUE_TOOL_TIMEOUT", "soon")
    with caplog.at_level(logging.WARNING, "monologue"), skills_pm.session("coder") as session:
        names = set(skills_pm.hooks.skills())
        assert settings.limits(session.config).timeout == 10.0
    assert {"counter", "speak", "status"} <= names
    warnings = [r.getMessage() for r in caplog.records if r.name == "monologue.settings"]
    assert len(warnings) == 1
    assert warnings[0].startswith(
        "tool_timeout = 'soon' (from env MONOLOGUE_TOOL_TIMEOUT): give seconds (10, 1.5) or a "
        "duration (30s, 2m); the session uses the default (10.0)"
    )
    assert not any(r.exc_info for r in caplog.records)
