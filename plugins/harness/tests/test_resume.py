"""A run SIGKILLed between tasks resumes from its checkpoint: no task runs twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from monologue_harness import HarnessError, TaskHarness
from pytest_monologue import PluginSandbox
from pytest_monologue.claude import FakeClaude

DRIVER = """
import asyncio, os, signal, sys
from monologue_harness import TaskHarness

def kill_after_first_task(event):
    if event.type == "status" and event.data["step"] == "task_finished":
        os.kill(os.getpid(), signal.SIGKILL)

tasks, cli, checkpoint, resume = sys.argv[1:5]
listener = None if resume == "resume" else kill_after_first_task
summary = asyncio.run(TaskHarness(tasks, cli_path=cli, checkpoint=checkpoint,
                                  resume=resume == "resume", listener=listener).run())
print(summary.model_dump_json())
"""


def drive(tmp: Path, tasks: Path, fake: FakeClaude, how: str) -> subprocess.CompletedProcess[str]:
    driver = tmp / "driver.py"
    driver.write_text(DRIVER)
    env = {**os.environ, "MONOLOGUE_NO_CONFIG_FILE": "1", "ANTHROPIC_API_KEY": ""}
    return subprocess.run(
        [sys.executable, str(driver), str(tasks), str(fake.cli), str(tmp / "cp.json"), how],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


def coding_runs(fake: FakeClaude) -> list[str]:
    """``T002#2``: the coder's runs, by task and attempt."""
    runs = []
    for prompt in fake.prompts():
        if "You are the coding agent" in prompt:
            task = prompt.split("Task ", 1)[1][:4]
            attempt = 2 if "This is attempt 2" in prompt else 1
            runs.append(f"{task}#{attempt}")
    return runs


def test_sigkill_then_resume_runs_no_task_twice(
    three_tasks: Path, fake_claude: FakeClaude, tmp_path: Path
) -> None:
    killed = drive(tmp_path, three_tasks, fake_claude, "kill")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    checkpoint = json.loads((tmp_path / "cp.json").read_text())
    assert {k: v["status"] for k, v in checkpoint["tasks"].items()}["T001"] == "validated"
    assert coding_runs(fake_claude) == ["T001#1"]

    resumed = drive(tmp_path, three_tasks, fake_claude, "resume")
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert {k: v["status"] for k, v in summary["tasks"].items()} == {
        "T001": "validated",
        "T002": "validated",
        "T003": "validated",
    }
    runs = coding_runs(fake_claude)
    assert sorted(runs) == ["T001#1", "T002#1", "T002#2", "T003#1"]
    assert len(runs) == len(set(runs))


async def test_resume_refuses_a_checkpoint_of_another_tasks_file(
    plugins: PluginSandbox, three_tasks: Path, tmp_path: Path
) -> None:
    checkpoint = tmp_path / "cp.json"
    checkpoint.write_text(json.dumps({"tasks_file": "x", "tasks_digest": "0" * 16}))
    harness = TaskHarness(three_tasks, parse="offline", checkpoint=checkpoint, resume=True)
    with pytest.raises(HarnessError, match="written for another version of"):
        await harness.run()


async def test_resume_names_a_corrupt_checkpoint(
    plugins: PluginSandbox, three_tasks: Path, tmp_path: Path
) -> None:
    checkpoint = tmp_path / "cp.json"
    checkpoint.write_text('{"tasks_file": 3}')
    harness = TaskHarness(three_tasks, parse="offline", checkpoint=checkpoint, resume=True)
    with pytest.raises(HarnessError, match=f"checkpoint {checkpoint}: "):
        await harness.run()
