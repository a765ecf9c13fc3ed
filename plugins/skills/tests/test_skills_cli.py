"""`monologue skills plan`: planner goals, bad input, and Ctrl-C stopping running tools."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from skills_fixtures import only_skills_env, pid_alive, shell_tool


def monologue(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "monologue", "skills", *args],
        capture_output=True,
        text=True,
        env=only_skills_env(tmp_path, **env),
        cwd=tmp_path,
        timeout=60,
    )


def test_plan_for_a_goal_uses_the_offline_planner_without_a_key(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    done = monologue(tmp_path, "plan", "--goal", "ship 1.0", "--state", str(state), "--json")
    assert done.returncode == 0, done.stderr
    assert "plan by skills:" in done.stderr
    assert [r["skill"] for r in json.loads(done.stdout)["results"]] == ["status", "notify"]
    assert json.loads(state.read_text())["document"]["status"] == {"task": "ship 1.0"}
    assert "[monologue] Working on: ship 1.0" in done.stderr


def test_plan_needs_a_file_or_a_goal_not_both(tmp_path: Path) -> None:
    neither = monologue(tmp_path, "plan")
    assert neither.returncode == 2 and "give a PLAN_FILE or --goal" in neither.stderr
    plan = tmp_path / "p.json"
    plan.write_text('{"actions": []}')
    both = monologue(tmp_path, "plan", str(plan), "--goal", "x")
    assert both.returncode == 2 and "not both" in both.stderr


def test_unreadable_and_invalid_plans_are_refused_naming_the_problem(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{actions")
    done = monologue(tmp_path, "plan", str(broken))
    assert done.returncode == 1 and "broken.json: cannot read the plan" in done.stderr
    invalid = tmp_path / "invalid.json"
    invalid.write_text(
        json.dumps({"actions": [{"id": "a", "skill": "fly"}, {"id": "a", "skill": "speak"}]})
    )
    done = monologue(tmp_path, "plan", str(invalid))
    assert done.returncode == 1
    assert "unknown skill 'fly'" in done.stderr and "duplicate id" in done.stderr
    assert "'text' is a required property" in done.stderr
    assert "monologue: the plan cannot run (3 problems; nothing was run):" in done.stderr


def test_an_unknown_skill_is_plain_words_and_starts_no_session(tmp_path: Path) -> None:
    done = monologue(tmp_path, "run", "teleport")
    assert done.returncode == 1
    # One problem is one line, naming the skill and what is known.
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("monologue: the plan cannot run (nothing was run): ")
    assert "unknown skill 'teleport' (known: " in done.stderr
    # No jargon, and no narrated session that "stopped because of an error".
    for jargon in ("invalid plan", "ClickException", "I stopped", "Traceback"):
        assert jargon not in done.stderr


@pytest.mark.parametrize("command", [["list"], ["run", "status", "--params", '{"task": "t"}']])
@pytest.mark.parametrize("value", ["abc", "-3", "0"])
def test_a_bad_tool_timeout_is_one_line_and_exit_2(
    tmp_path: Path, command: list[str], value: str
) -> None:
    done = monologue(tmp_path, *command, MONOLOGUE_TOOL_TIMEOUT=value)
    assert done.returncode == 2, done.stdout
    assert done.stderr.startswith(
        f"monologue skills: tool_timeout = {value!r} (from env MONOLOGUE_TOOL_TIMEOUT): "
    )
    assert len(done.stderr.splitlines()) == 1


def test_tool_timeout_takes_a_duration(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    tools.mkdir()
    shell_tool(tools, "slow", "sleep 30")
    started = time.monotonic()
    done = monologue(tmp_path, "run", "slow", MONOLOGUE_TOOL_TIMEOUT="1s")
    assert done.returncode == 1
    assert "timed out after 1 s" in done.stdout
    assert time.monotonic() - started < 15


def test_a_failed_action_makes_the_exit_status_1(tmp_path: Path) -> None:
    plan = tmp_path / "p.json"
    webhook = {"url": "http://127.0.0.1:9/", "text": "x", "retries": 0}
    actions = [
        {"id": "w", "skill": "webhook", "parameters": webhook},
        {"id": "after", "skill": "status", "parameters": {"task": "t"}, "depends_on": ["w"]},
    ]
    plan.write_text(json.dumps({"actions": actions}))
    done = monologue(tmp_path, "plan", str(plan))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0].startswith("failed") and "webhook to http://127.0.0.1:9/ failed" in lines[0]
    assert lines[1].startswith("skipped") and "depends on 'w', which failed" in lines[1]


def test_ctrl_c_stops_the_running_tools(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    tools.mkdir()
    pids = tmp_path / "pids"
    shell_tool(tools, "slow", f"echo $$ > {pids}; sleep 60")
    plan = tmp_path / "p.json"
    plan.write_text(json.dumps({"actions": [{"id": "s", "skill": "slow"}]}))
    proc = subprocess.Popen(
        [sys.executable, "-m", "monologue", "skills", "plan", str(plan)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=only_skills_env(tmp_path, MONOLOGUE_TOOL_TIMEOUT="60"),
        cwd=tmp_path,
    )
    deadline = time.monotonic() + 20
    while not pids.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    tool_pid = int(pids.read_text())
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=20)
    assert proc.returncode != 0
    assert time.monotonic() - started < 10
    assert not pid_alive(tool_pid)
