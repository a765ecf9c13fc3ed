"""A replay recorded with ``--record`` says where it went, and ``log`` of that recording
shows its narratives at the recorded session's time, not the replay's wall clock."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from conftest import Cli
from pytest_monologue import MockNarrator

from monologue.events import Event, RecordingHeader

THEN = datetime(2020, 1, 1, 9, 0, tzinfo=UTC)


def old_session(path: Path) -> None:
    header = RecordingHeader(session_id="OLD", agent="coder", started_at=THEN)
    events = [
        Event(
            type="tool_call",
            session_id="OLD",
            agent="coder",
            ts=THEN + timedelta(minutes=n),
            data={"tool_name": "Read", "tool_use_id": f"t{n}", "input": {"file_path": f"{n}.py"}},
        )
        for n in range(4)
    ]
    path.write_text("\n".join([header.to_json(), *(e.to_json() for e in events)]) + "\n")


def test_log_of_a_recorded_replay_keeps_to_the_recorded_time(
    run_cli: Cli, tmp_path: Path, record_dir: Path, mock_narrator: MockNarrator
) -> None:
    source = tmp_path / "old.jsonl"
    old_session(source)
    replayed = run_cli("replay", "--record", "-c", "max_buffer_size=2", str(source))
    assert replayed.exit_code == 0, replayed.output
    [said] = [line for line in replayed.stderr.splitlines() if "recorded as session" in line]
    [recording] = list(record_dir.iterdir())
    assert said == f"monologue: recorded as session {recording.stem} in {recording}"

    lines = [
        json.loads(line) for line in run_cli("log", "--json", str(recording)).stdout.splitlines()
    ]
    narratives = [line for line in lines if line["kind"] == "narrative"]
    assert narratives
    for narrative in narratives:
        shown = datetime.fromisoformat(narrative["ts"])
        assert THEN <= shown <= THEN + timedelta(minutes=3)  # never the replay's wall clock
