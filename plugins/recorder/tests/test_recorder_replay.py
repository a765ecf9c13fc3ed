"""Replays and the recorder: the core replays what the recorder wrote, and a replay is
recorded only when asked (``--record``), with the recorder's own settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Cli, json_lines, recording_of
from pytest_monologue import MockNarrator, PluginSandbox


@pytest.fixture
def recording(recorder: PluginSandbox, record_dir: Path, mock_narrator: MockNarrator) -> Path:
    """A session narrated live: its two narratives recorded among its events."""
    mock_narrator.queue("I'm running the tests.", "The tests pass.")
    with recorder.session("tester", max_buffer_size=3) as s:
        s.text("Running the suite.")
        call = s.tool_call("Bash", {"command": "pytest -q"})
        s.tool_result(call.data["tool_use_id"], "12 passed")
        assert mock_narrator.wait_for_calls(1)
        s.text("All green.")
    mock_narrator.calls.clear()
    return recording_of(record_dir, s.id)


def test_a_recording_replays_with_its_recorded_narratives(run_cli: Cli, recording: Path) -> None:
    result = run_cli("replay", "--recorded", str(recording))

    assert result.exit_code == 0, result.output
    assert [line.split(" ", 1)[1] for line in result.stdout.splitlines()] == [
        "tester: I'm running the tests.",
        "tester: The tests pass.",
    ]
    assert "7 events, 1 tool call, 2 narratives" in result.stderr


def test_replay_record_records_the_replay_as_a_new_session(
    run_cli: Cli, recording: Path, record_dir: Path, mock_narrator: MockNarrator
) -> None:
    result = run_cli("replay", "--record", str(recording))

    [replayed] = set(record_dir.iterdir()) - {recording}
    header, *events = json_lines(replayed)
    assert (header["agent"], header["meta"]) == (
        "tester",
        {"replay_of": str(recording), "source_format": "monologue"},
    )
    assert [e["type"] for e in events if e["type"] in {"text", "tool_call", "tool_result"}] == [
        "text",
        "tool_call",
        "tool_result",
        "text",
    ]
    assert "not recorded" not in result.stderr


def test_a_recorded_replay_with_a_bad_durability_is_a_one_line_error(
    run_cli: Cli, recording: Path, record_dir: Path
) -> None:
    before = set(record_dir.iterdir())
    result = run_cli(
        "replay", "--record", "--narrator", "none", "-c", "durability=sometimes", str(recording)
    )

    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(
        "monologue replay: durability = 'sometimes' (from command-line flags): "
    )
    assert len(result.stderr.strip().splitlines()) == 1
    assert set(record_dir.iterdir()) == before
