"""``monologue check``: audits a recording, prints what is false and why, exits 1."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import Result
from pytest_monologue import PluginSandbox

from monologue.events import Event, RecordingHeader

Cli = Callable[..., Result]


def record(folder: Path, session_id: str, narrative: str) -> Path:
    """A recording: a failing test run, then one narrative covering it."""
    call = {"tool_name": "Bash", "tool_use_id": "t1", "input": {"command": "pytest -q"}}
    result = {"tool_use_id": "t1", "output": "2 failed, 38 passed in 1.1s", "is_error": True}
    told = {"text": narrative, "narrator": "template", "reason": "buffer", "covers": ["e1", "e2"]}
    common = {"session_id": session_id, "agent": "coder"}
    events = [
        Event(id="e1", type="tool_call", data=call, **common),
        Event(id="e2", type="tool_result", data=result, **common),
        Event(id="e3", type="narrative", visibility="user", data=told, **common),
    ]
    header = RecordingHeader(session_id=session_id, agent="coder", started_at=datetime.now(UTC))
    path = folder / f"{session_id}.jsonl"
    lines = [header.model_dump_json(), *(e.model_dump_json() for e in events)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def cli(monologue_plugins: PluginSandbox, monologue_cli: Cli) -> Cli:
    monologue_plugins.load("check")
    return monologue_cli


def test_a_false_narrative_fails_the_audit_with_its_reasons(cli: Cli, tmp_path: Path) -> None:
    path = record(tmp_path, "S1", "I ran `pytest -q`; all 40 tests passed.")
    result = cli("check", str(path))
    assert result.exit_code == 1
    assert "✗ I ran `pytest -q`; all 40 tests passed." in result.stdout
    assert "outcome: says it passed" in result.stdout
    assert "tool_result (error) 2 failed, 38 passed" in result.stdout
    assert "1 narrative(s), 1 with false claims" in result.stdout


def test_a_true_narrative_passes(cli: Cli, tmp_path: Path) -> None:
    path = record(tmp_path, "S2", "I ran `pytest -q`; 2 of 40 tests failed.")
    result = cli("check", str(path))
    assert result.exit_code == 0, result.stdout
    assert "0 with false claims" in result.stdout


def test_json_is_one_array_with_totals_per_kind(cli: Cli, tmp_path: Path) -> None:
    bad = record(tmp_path, "S3", "I ran `pytest -q`; all 40 tests passed.")
    good = record(tmp_path, "S4", "I ran `pytest -q`; 2 of 40 tests failed.")
    result = cli("check", "--json", str(bad), str(good))
    audits = json.loads(result.stdout)
    assert [a["failed"] for a in audits] == [1, 0]
    assert audits[0]["violations"]["outcome"] == 1
    assert audits[1]["claims"]["count"] == 1
    assert result.exit_code == 1


def test_a_session_id_is_found_in_the_record_folder(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONOLOGUE_RECORD_DIR", str(tmp_path))
    record(tmp_path, "01SESSION", "I ran `pytest -q`; 2 of 40 tests failed.")
    assert cli("check", "01SESSION").exit_code == 0


def test_an_unknown_target_is_one_line_and_exit_2(cli: Cli, tmp_path: Path) -> None:
    result = cli("check", str(tmp_path / "missing.jsonl"))
    assert result.exit_code == 2
    assert "missing.jsonl: no such recording" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_file_no_reader_knows_is_one_line_and_exit_1(cli: Cli, tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("just some notes\n")
    result = cli("check", str(junk))
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ")
    assert str(junk) in result.stderr
