"""A ``claude`` CLI with no login and no API key (issue 25, defect 1): one line naming the
agent, what the CLI said and what to do, exit 1, no traceback, nothing recorded; the run
stops at the first refusal instead of failing every task the same way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from harness_fixtures import SESSION, THREE_TASKS, init
from monologue_harness import AgentMode, NotLoggedInError, TaskHarness
from pytest_monologue import PluginSandbox
from pytest_monologue.claude import FakeClaude

REFUSAL = "Not logged in · Please run /login"


def not_logged_in() -> dict[str, Any]:
    """What the real CLI (2.1.332) writes without a login, then exits 1."""
    assistant = {
        "type": "assistant",
        "message": {
            "id": "bd0a6f9f-8f3e-41f4-8739-4398ced0b96e",
            "model": "<synthetic>",
            "role": "assistant",
            "type": "message",
            "stop_reason": "stop_sequence",
            "content": [{"type": "text", "text": REFUSAL}],
            "usage": {"input_tokens": 0, "output_tokens": 0},
        },
        "parent_tool_use_id": None,
        "session_id": SESSION,
        "error": "authentication_failed",
        "is_api_error_message": True,
    }
    result = {
        "type": "result",
        "subtype": "success",
        "is_error": True,
        "duration_ms": 1447,
        "duration_api_ms": 0,
        "num_turns": 1,
        "result": REFUSAL,
        "session_id": SESSION,
        "total_cost_usd": 0,
        "usage": {"input_tokens": 0, "output_tokens": 0},
        "terminal_reason": "api_error",
    }
    return {"match": [], "steps": [init(), {"send": assistant}, {"send": result}, {"exit": 1}]}


def monologue_cli(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HOME": str(tmp),
        "MONOLOGUE_NO_CONFIG_FILE": "1",
        "MONOLOGUE_DATA_DIR": str(tmp / "data"),
        "ANTHROPIC_API_KEY": "",
    }
    return subprocess.run(
        [sys.executable, "-m", "monologue", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


@pytest.fixture
def tasks(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.md"
    path.write_text(THREE_TASKS, encoding="utf-8")
    return path


def test_record_without_a_login_is_one_line(tmp_path: Path, tasks: Path) -> None:
    fake = FakeClaude.create(tmp_path / "fake", [not_logged_in()])
    store = tmp_path / "recordings"
    done = monologue_cli(
        tmp_path, "harness", "run", str(tasks), "--record", str(store), "--cli-path", str(fake.cli)
    )
    assert done.returncode == 1, done
    assert done.stderr.splitlines() == [
        f"monologue: parser: the claude CLI could not authenticate ({REFUSAL}): log in with "
        "`claude` then /login, or set ANTHROPIC_API_KEY; --replay DIR needs neither"
    ]
    assert len(fake.prompts()) == 1
    assert not list(store.rglob("*.json")), "a refused run was recorded"


async def test_a_refused_coder_stops_the_run(
    plugins: PluginSandbox, tmp_path: Path, tasks: Path
) -> None:
    fake = FakeClaude.create(tmp_path / "fake", [not_logged_in()])
    harness = TaskHarness(
        tasks,
        mode=AgentMode(kind="record", store=tmp_path / "recordings"),
        parse="offline",
        cli_path=fake.cli,
        checkpoint=tmp_path / "cp.json",
        continue_on_failure=True,
    )
    with pytest.raises(NotLoggedInError, match=r"^coder: the claude CLI could not authenticate"):
        await harness.run()
    assert len(fake.prompts()) == 1  # not once per task


def test_a_cli_that_cannot_start_is_one_line(tmp_path: Path, tasks: Path) -> None:
    broken = tmp_path / "claude"
    broken.write_text("#!/bin/sh\nexit 0\n")
    broken.chmod(0o644)  # not executable
    done = monologue_cli(tmp_path, "harness", "run", str(tasks), "--cli-path", str(broken))
    assert done.returncode == 1, done
    [line] = done.stderr.splitlines()
    assert line.startswith("monologue: parser: Failed to start Claude Code: "), line
    assert "Permission denied" in line
