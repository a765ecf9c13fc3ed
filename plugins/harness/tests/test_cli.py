"""`monologue harness run`, on the example's recordings: one command, offline, narrated."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from pytest_monologue import PluginSandbox

from monologue.cli import cli

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "harness"
GOLDEN = Path(__file__).parent / "fixtures" / "example-narration.txt"
"""What the example's replay printed with the template narrator when last accepted: its
narratives are generated anew on every replay, this file only shows how they changed.
``MONOLOGUE_UPDATE_GOLDEN=1`` rewrites it from the current narrator."""


@pytest.fixture
def runner(plugins: PluginSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("MONOLOGUE_DATA_DIR", str(tmp_path / "data"))
    return CliRunner()


def test_example_replays_offline_with_narration(runner: CliRunner) -> None:
    result = runner.invoke(
        cli, ["harness", "run", str(EXAMPLE / "tasks.md"), "--replay", str(EXAMPLE / "recordings")]
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()  # standard error names the checkpoint
    speakers = {line.split(":", 1)[0] for line in lines if ": " in line}
    assert {"parser", "coder", "reviewer"} <= speakers
    assert "T002 rejected on attempt 1; retrying" in lines
    assert lines[-1].startswith("3 total, 3 validated; 1 retries;")
    assert lines[-1].endswith("7500 in / 750 out tokens; $0.1500")


def test_example_narratives_are_generated_and_diffed_against_the_golden(
    runner: CliRunner,
) -> None:
    import difflib

    # The recordings hold the agents' messages only: no narrative to play back.
    for recording in (EXAMPLE / "recordings").rglob("*.json"):
        assert "narratives" not in json.loads(recording.read_text())["metadata"], recording
    result = runner.invoke(
        cli, ["harness", "run", str(EXAMPLE / "tasks.md"), "--replay", str(EXAMPLE / "recordings")]
    )
    assert result.exit_code == 0, result.output
    printed = result.stdout.splitlines()[:-1]  # the summary line holds the run's duration
    assert sum(line.startswith(("parser: ", "coder: ", "reviewer: ")) for line in printed) == 18
    if os.environ.get("MONOLOGUE_UPDATE_GOLDEN"):
        GOLDEN.write_text("\n".join(printed) + "\n", encoding="utf-8")
    golden = GOLDEN.read_text(encoding="utf-8").splitlines()
    diff = "\n".join(difflib.unified_diff(golden, printed, "golden", "replayed", lineterm=""))
    assert not diff, f"the narration changed (MONOLOGUE_UPDATE_GOLDEN=1 accepts it):\n{diff}"


def test_json_summary(runner: CliRunner) -> None:
    result = runner.invoke(
        cli,
        [
            "harness",
            "run",
            str(EXAMPLE / "tasks.md"),
            "--json",
            "--replay",
            str(EXAMPLE / "recordings"),
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["counts"] == {
        "total": 3,
        "validated": 3,
        "failed": 0,
        "blocked": 0,
        "complete": 0,
        "not_run": 0,
    }
    assert (report["retries"], report["cost_usd"]) == (1, 0.15)
    assert report["tasks"]["T002"]["attempts"] == 2


def test_missing_recording_is_reported(runner: CliRunner, tmp_path: Path) -> None:
    store = tmp_path / "recordings"
    shutil.copytree(EXAMPLE / "recordings", store)
    shutil.rmtree(store / "parser")
    result = runner.invoke(
        cli, ["harness", "run", str(EXAMPLE / "tasks.md"), "--replay", str(store)]
    )
    assert result.exit_code == 1
    assert "no recording of agent 'parser' for prompt hash" in result.output
    assert "no recording of this agent" in result.output


def test_record_and_replay_exclude_each_other(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(
        cli,
        [
            "harness",
            "run",
            str(EXAMPLE / "tasks.md"),
            "--record",
            str(tmp_path),
            "--replay",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 2 and "--record and --replay exclude each other" in result.output


def test_failed_run_exits_1(runner: CliRunner, tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.md"
    tasks.write_text(
        "## Phase 1: A\n- [ ] T001 a (depends on T002)\n- [ ] T002 b (depends on T001)\n"
    )
    result = runner.invoke(cli, ["harness", "run", str(tasks), "--offline-parse"])
    assert result.exit_code == 1
    assert "dependency cycle: T001 -> T002" in result.output
    assert "2 total, 2 blocked;" in result.output


def test_one_agent_example_runs(tmp_path: Path) -> None:
    env = {**os.environ, "MONOLOGUE_NO_CONFIG_FILE": "1", "ANTHROPIC_API_KEY": ""}
    done = subprocess.run(
        [sys.executable, str(EXAMPLE / "one_agent.py")],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert lines[0].startswith("parser: I'll parse the tasks file")
    assert "StructuredOutput" not in done.stdout  # narrated anew, not the stored narratives
    assert lines[-1] == "[('T001', []), ('T002', ['T001']), ('T003', [])]"


@pytest.mark.parametrize("preset", ["default", "terse", "verbose"])
def test_no_tool_jargon_in_the_narratives(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, preset: str
) -> None:
    """The SDK's StructuredOutput call is told in plain words, in every preset (issue 25)."""
    monkeypatch.setenv("MONOLOGUE_PRESET", preset)
    result = runner.invoke(
        cli, ["harness", "run", str(EXAMPLE / "tasks.md"), "--replay", str(EXAMPLE / "recordings")]
    )
    assert result.exit_code == 0, result.output
    said = [line for line in result.stdout.splitlines() if line.startswith(("parser:", "coder:"))]
    assert said and not [line for line in said if "StructuredOutput" in line]
