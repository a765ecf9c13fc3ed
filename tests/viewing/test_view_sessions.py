"""``monologue sessions`` lists what was recorded, the most recent first; ``log`` and
``replay`` take an id from it (or a unique prefix)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from pytest_monologue import PluginSandbox
from viewing_support import Cli, recording_of


@pytest.fixture
def two(recorder: PluginSandbox, record_dir: Path) -> list[str]:
    """Two recorded sessions: a finished one with a prompt, then a failed one."""
    with recorder.session("coder", narrator="none") as first:
        first.emit("user_message", {"text": "Make the retry\nlimit configurable", "origin": "user"})
        call = first.tool_call("Read", {"file_path": "client.py"})
        first.tool_result(call.data["tool_use_id"], "MAX_RETRIES = 3")
        first.text("Done: the limit comes from the settings.")
    second = recorder.session("tester", narrator="none", task_id="T-7").start()
    second.tool_call("Bash", {"command": "pytest"})
    second.close(error=RuntimeError("tests crashed"))
    # Written one after the other: make the order of their times unambiguous.
    older = recording_of(record_dir, first.id)
    os.utime(older, (time.time() - 60, time.time() - 60))
    return [second.id, first.id]


def test_sessions_lists_the_most_recent_first(run_cli: Cli, two: list[str]) -> None:
    result = run_cli("sessions", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [row["id"] for row in rows] == two
    failed, done = rows
    assert done["title"] == "Make the retry limit configurable"
    assert done["source"] == "live" and done["agent"] == "coder"
    assert done["events"] == 5 and done["status"] == "completed"
    assert done["narratives"] == 0 and done["duration_s"] >= 0
    assert failed["title"] == "T-7" and failed["status"] == "failed"

    table = run_cli("sessions").stdout.splitlines()
    assert len(table) == 2 and table[0].startswith(two[0]) and "failed" in table[0]
    assert "Make the retry limit configurable" in table[1]


def test_count_and_one_object_per_line(run_cli: Cli, two: list[str]) -> None:
    [only] = json.loads(run_cli("sessions", "-n", "1", "--json").stdout)
    assert only["id"] == two[0]
    lines = run_cli("sessions", "--nl").stdout.splitlines()
    assert [json.loads(line)["id"] for line in lines] == two


def test_log_and_replay_take_an_id_or_a_prefix(run_cli: Cli, two: list[str]) -> None:
    newest = two[0]
    logged = run_cli("log", newest)
    assert logged.exit_code == 0, logged.output
    assert logged.stdout.startswith(f"session {newest} of tester")
    replayed = run_cli("replay", "--json", "--narrator", "none", newest[:20])
    assert replayed.exit_code == 0, replayed.output
    assert json.loads(replayed.stdout.splitlines()[-1])["tool_calls"] == 1


def test_an_unknown_id_is_one_line_naming_it(run_cli: Cli, two: list[str]) -> None:
    result = run_cli("replay", "NOSUCHSESSION")
    assert result.exit_code == 1
    [line] = result.stderr.splitlines()
    assert line.startswith("monologue: no recorded session 'NOSUCHSESSION' in ")


def test_an_empty_record_directory_says_so(run_cli: Cli, record_dir: Path) -> None:
    result = run_cli("sessions")
    assert result.exit_code == 0
    assert result.stderr.strip() == f"no recorded sessions in {record_dir}"
    assert json.loads(run_cli("sessions", "--json").stdout) == []
