"""External tools as skills, with real subprocesses: the contract and every limit."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import pytest
from monologue_skills.state import SkillState
from pytest_monologue import PluginSandbox
from skills_fixtures import pid_alive, python_tool, shell_tool, write_tool

from monologue import SkillCall


def run(pm: PluginSandbox, name: str, state: SkillState | None = None, **args: object):
    return pm.hooks.execute_skill(None, SkillCall(name=name, args=args, id="a1"), state)


def test_tool_is_listed_from_its_description(skills_pm: PluginSandbox, tools_dir: Path) -> None:
    schema = {"type": "object", "properties": {"item": {"type": "string"}}}
    python_tool(
        tools_dir,
        "checklist.py",
        "reply()",
        describe={"name": "checklist", "description": "a checklist", "parameters": schema},
    )
    spec = skills_pm.hooks.skills()["checklist"]
    assert (spec.plugin, spec.description, spec.parameters) == ("skills", "a checklist", schema)


def test_tool_reads_the_contract_and_its_changes_reach_the_state(
    skills_pm: PluginSandbox, tools_dir: Path
) -> None:
    python_tool(
        tools_dir,
        "echo",
        """
        reply(output={"got": request, "cwd": os.getcwd()},
              stateChanges=[{"op": "add", "path": "/seen", "value": request["parameters"]["x"]}])
        """,
    )
    state = SkillState({"before": 1})
    result = run(skills_pm, "echo", state, x=5)
    assert result.ok, result.error
    got = result.output["got"]
    assert got == {
        "actionId": "a1",
        "skill": "echo",
        "parameters": {"x": 5},
        "state": {"before": 1},
        "sessionId": None,
    }
    assert result.output["cwd"] == str(tools_dir.resolve())
    assert state.changes == [{"op": "add", "path": "/seen", "value": 5}]


def test_nonzero_exit_with_valid_json_is_a_failure_with_its_details(
    skills_pm: PluginSandbox, tools_dir: Path
) -> None:
    python_tool(
        tools_dir,
        "failing",
        'reply(success=True, output="half", errors=["disk full"], code=3,'
        ' stateChanges=[{"op": "add", "path": "/x", "value": 1}])',
    )
    state = SkillState()
    result = run(skills_pm, "failing", state)
    assert not result.ok
    assert result.error == "disk full"
    assert result.output == "half"
    assert state.changes == []  # a failed tool changes nothing


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        (
            "echo 'Traceback: oops not json'; echo boom >&2",
            "tool 'bad' (exit status 0) did not print JSON on stdout; it begins "
            "b'Traceback: oops not json\\n' (stderr: boom)",
        ),
        (
            "echo '{\"output\": 1}'",
            "tool 'bad' printed JSON that is not a tool result: success: Field required",
        ),
    ],
)
def test_output_that_is_not_a_tool_result_names_the_tool_and_what_is_wrong(
    skills_pm: PluginSandbox, tools_dir: Path, script: str, expected: str
) -> None:
    shell_tool(tools_dir, "bad", script)
    result = run(skills_pm, "bad")
    assert not result.ok
    assert result.error == expected


def test_timeout_kills_the_tool_and_its_child(
    skills_pm: PluginSandbox, tools_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONOLOGUE_TOOL_TIMEOUT", "1")
    pids = tmp_path / "pids"
    # The tool ignores SIGTERM, so only the SIGKILL after the grace stops it.
    shell_tool(
        tools_dir,
        "sleepy",
        f"""
        trap '' TERM
        sleep 300 &
        echo $$ $! > {pids}
        wait
        """,
    )
    started = time.monotonic()
    result = run(skills_pm, "sleepy")
    elapsed = time.monotonic() - started
    assert not result.ok and result.error == "tool 'sleepy' timed out after 1 s"
    assert elapsed < 5
    tool_pid, child_pid = map(int, pids.read_text().split())
    deadline = time.monotonic() + 3
    while (pid_alive(tool_pid) or pid_alive(child_pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not pid_alive(tool_pid) and not pid_alive(child_pid)


def test_a_child_left_behind_by_a_finished_tool_is_killed(
    skills_pm: PluginSandbox, tools_dir: Path, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    shell_tool(
        tools_dir,
        "leaver",
        f"""
        sleep 300 > /dev/null 2>&1 &
        echo $! > {pids}
        echo '{{"success": true}}'
        """,
    )
    assert run(skills_pm, "leaver").ok
    child = int(pids.read_text())
    deadline = time.monotonic() + 3
    while pid_alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not pid_alive(child)


def test_cancellation_stops_a_running_tool(skills_pm: PluginSandbox, tools_dir: Path) -> None:
    shell_tool(tools_dir, "slow", "sleep 30")
    state = SkillState()
    threading.Timer(0.3, state.cancel.set).start()
    started = time.monotonic()
    result = run(skills_pm, "slow", state)
    assert not result.ok and result.error == "tool 'slow' was cancelled"
    assert time.monotonic() - started < 5


def test_a_flood_of_stdout_is_capped_not_buffered(
    skills_pm: PluginSandbox, tools_dir: Path
) -> None:
    shell_tool(tools_dir, "flood", "head -c 100000000 /dev/zero")
    started = time.monotonic()
    result = run(skills_pm, "flood")
    assert not result.ok
    assert result.error == "tool 'flood' printed more than 1048576 bytes on stdout (the cap)"
    assert time.monotonic() - started < 5


def test_secrets_are_scrubbed_from_the_environment_unless_allowed(
    skills_pm: PluginSandbox, tools_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-secret")
    monkeypatch.setenv("HARMLESS_SETTING", "fine")
    python_tool(tools_dir, "env", "reply(output=dict(os.environ))")
    seen = run(skills_pm, "env").output
    assert "ANTHROPIC_API_KEY" not in seen and "GITHUB_TOKEN" not in seen
    assert seen["HARMLESS_SETTING"] == "fine"
    monkeypatch.setenv("MONOLOGUE_TOOL_ENV_ALLOW", "GITHUB_TOKEN")
    seen = run(skills_pm, "env").output
    assert seen["GITHUB_TOKEN"] == "ghp-secret" and "ANTHROPIC_API_KEY" not in seen


def test_symlink_escaping_the_tools_dir_is_refused(
    skills_pm: PluginSandbox, tools_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    outside = shell_tool(tmp_path, "outside", "echo '{\"success\": true}'")
    (tools_dir / "escape").symlink_to(outside)
    inside = shell_tool(tools_dir, "inside", "echo '{\"success\": true}'")
    (tools_dir / "alias").symlink_to(inside)
    with caplog.at_level(logging.WARNING, "monologue.skills"):
        names = set(skills_pm.hooks.skills())
    assert "outside" not in names and "inside" in names
    assert any("leads outside the tools folder" in r.getMessage() for r in caplog.records)
    # A symlink within the folder is fine (both names describe as "inside": one is kept).
    assert any("taken by" in r.getMessage() for r in caplog.records)


def test_non_executable_file_is_skipped_with_a_warning(
    skills_pm: PluginSandbox, tools_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_tool(tools_dir, "notes.txt", "just notes", mode=0o644)
    with caplog.at_level(logging.WARNING, "monologue.skills"):
        names = set(skills_pm.hooks.skills())
    assert "notes" not in names
    assert any(
        "not executable" in r.getMessage() and "notes.txt" in r.getMessage() for r in caplog.records
    )


def test_a_tool_that_cannot_describe_itself_is_named_after_its_file(
    skills_pm: PluginSandbox, tools_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_tool(tools_dir, "plain-tool.sh", "#!/bin/sh\nexit 2\n")
    with caplog.at_level(logging.WARNING, "monologue.skills"):
        spec = skills_pm.hooks.skills()["plain-tool"]
    assert spec.parameters == {}
    assert any("--describe failed" in r.getMessage() for r in caplog.records)


def test_per_tool_timeout_override(skills_pm: PluginSandbox, tools_dir: Path) -> None:
    python_tool(
        tools_dir,
        "quick",
        "time.sleep(5)",
        describe={"name": "quick", "timeout": 0.5},
    )
    result = run(skills_pm, "quick")
    assert result.error == "tool 'quick' timed out after 0.5 s"


def test_malformed_state_changes_from_a_tool_fail_the_action(
    skills_pm: PluginSandbox, tools_dir: Path
) -> None:
    python_tool(tools_dir, "sloppy", 'reply(stateChanges=[{"op": "teleport", "path": "/x"}])')
    state = SkillState()
    result = run(skills_pm, "sloppy", state)
    assert not result.ok
    assert result.error.startswith("tool 'sloppy': stateChanges are not valid JSON Patch")
    assert state.changes == []


def test_an_invalid_description_is_warned_about(
    skills_pm: PluginSandbox, tools_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    python_tool(tools_dir, "odd", "reply()", describe={"name": "has space"})
    with caplog.at_level(logging.WARNING, "monologue.skills"):
        assert "odd" in skills_pm.hooks.skills()
    assert any("--describe printed no valid description" in r.getMessage() for r in caplog.records)


def test_a_tool_that_cannot_start_fails_naming_it(
    skills_pm: PluginSandbox, tools_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_tool(tools_dir, "nobang", "echo this file has no interpreter line\n")
    with caplog.at_level(logging.WARNING, "monologue.skills"):
        result = run(skills_pm, "nobang")
    assert any("cannot start it" in r.getMessage() for r in caplog.records)
    assert not result.ok
    assert result.error.startswith("tool 'nobang' could not start: [Errno 8] Exec format error")
