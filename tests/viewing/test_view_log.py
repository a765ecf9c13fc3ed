"""``monologue log``: a recorded session, found by path or id, with suppressions' reasons."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_monologue import MockNarrator, PluginSandbox
from viewing_support import Cli, recording_of


@pytest.fixture
def session_id(recorder: PluginSandbox, mock_narrator: MockNarrator) -> str:
    mock_narrator.queue("I'm checking the retry limit.")
    with recorder.session("coder") as s:
        call = s.tool_call("Read", {"file_path": "client.py"})
        s.tool_result(call.data["tool_use_id"], "MAX_RETRIES = 3")
        s.emit("narration_suppressed", {"reason": "gate: nothing new since the last narrative"})
    return s.id


def test_log_prints_header_events_narratives_and_suppression_reasons(
    run_cli: Cli, record_dir: Path, session_id: str
) -> None:
    result = run_cli("log", str(recording_of(record_dir, session_id)))

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"session {session_id} of coder, started ")
    body = [line.split(None, 2)[2] for line in lines[1:]]
    assert body == [
        "tool_call Read file_path=client.py",
        "tool_result MAX_RETRIES = 3",
        "narration_suppressed gate: nothing new since the last narrative",
        "completion",
        "I'm checking the retry limit.",
    ]


def test_log_finds_a_session_by_id_or_unique_prefix(
    run_cli: Cli, session_id: str, recorder: PluginSandbox
) -> None:
    assert run_cli("log", session_id).stdout.startswith(f"session {session_id}")
    assert run_cli("log", session_id[:20]).stdout.startswith(f"session {session_id}")


def test_an_unknown_or_ambiguous_id_is_named(
    run_cli: Cli, record_dir: Path, session_id: str, recorder: PluginSandbox
) -> None:
    result = run_cli("log", "NOSUCHSESSION")
    assert result.exit_code == 1
    assert f"no recorded session 'NOSUCHSESSION' in {record_dir}" in result.stderr

    with recorder.session("other", narrator="none") as other:
        other.text("hi")
    common = next(i for i, (a, b) in enumerate(zip(session_id, other.id, strict=True)) if a != b)
    result = run_cli("log", session_id[:common])
    assert result.exit_code == 1
    assert "2 recorded sessions start with" in result.stderr


def test_log_json_prints_the_header_and_every_event(
    run_cli: Cli, session_id: str, record_dir: Path
) -> None:
    result = run_cli("log", "--json", session_id)
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[0]["kind"] == "header" and lines[0]["header"]["session_id"] == session_id
    assert [line["kind"] for line in lines[1:]] == ["event"] * 4 + ["narrative", "narration"]
    assert lines[-1]["narration"]["requests"] == 0  # the gate and template ask no model
    assert lines[3]["event"]["data"]["reason"].startswith("gate:")


def test_log_strict_reports_a_bad_line_after_printing_what_came_before(
    run_cli: Cli, session_id: str, record_dir: Path
) -> None:
    path = recording_of(record_dir, session_id)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([*lines[:2], b"not json\n", *lines[2:]]))

    result = run_cli("log", "--strict", session_id)
    assert result.exit_code == 1
    assert "tool_call Read" in result.stdout
    assert f"{path}:3: invalid JSON" in result.stderr
