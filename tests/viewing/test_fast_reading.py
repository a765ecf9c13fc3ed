"""Recordings are read without re-validating each event (they were validated when written),
yet a line a recorder could not have written is still caught by the validator, naming it."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from monologue.errors import RecordingError
from monologue.events import Event
from monologue.recording import read_recording

HEADER = {
    "monologue": 1,
    "session_id": "s1",
    "agent": "coder",
    "started_at": "2026-01-02T03:04:05Z",
    "meta": {},
}


def event(**changes: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": "01JAAAAAAAAAAAAAAAAAAAAAAA",
        "ts": "2026-01-02T03:04:06.250000Z",
        "session_id": "s1",
        "agent": "coder",
        "task_id": None,
        "type": "tool_call",
        "visibility": "internal",
        "data": {"tool_name": "Read", "tool_use_id": "t1", "input": {"path": "a.py"}},
    }
    return base | changes


def recording(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "r.jsonl"
    path.write_text(
        "\n".join(json.dumps(line) if not isinstance(line, str) else line for line in lines) + "\n"
    )
    return path


def test_a_recorded_line_reads_back_equal_to_the_validated_event(tmp_path: Path) -> None:
    line = event(custom="kept", data={"tool_name": "Read", "tool_use_id": "t1", "input": {}})
    [read] = read_recording(recording(tmp_path, HEADER, line))
    validated = Event.model_validate(line)
    assert read == validated
    assert read.model_dump() == validated.model_dump()
    assert read.model_dump_json() == validated.model_dump_json()
    assert read.ts.utcoffset() is not None
    assert read.model_extra == {"custom": "kept"}  # an unknown field round-trips


@pytest.mark.parametrize(
    ("line", "named"),
    [
        (event(data={"tool_use_id": "t1"}), "data.tool_name"),
        (event(visibility="user"), "visibility"),
        (event(ts="2026-01-02T03:04:06"), "ts"),
        (event(type=3), "type"),
        (event(data=[1]), "data"),
    ],
)
def test_a_line_no_recorder_writes_is_caught_and_named(
    tmp_path: Path, line: dict[str, object], named: str
) -> None:
    path = recording(tmp_path, HEADER, line, event(id="01JBBBBBBBBBBBBBBBBBBBBBBB"))
    with pytest.raises(RecordingError) as caught:
        list(read_recording(path, strict=True))
    assert caught.value.line == 2
    assert named in str(caught.value)


def test_a_bad_line_mid_file_is_skipped_and_counted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = recording(tmp_path, HEADER, event(), "{not json", event(id="01JBBBBBBBBBBBBBBBBBBBBBBB"))
    reader = read_recording(path)
    with caplog.at_level(logging.WARNING, "monologue.recording"):
        events = list(reader)
    assert [e.id for e in events] == ["01JAAAAAAAAAAAAAAAAAAAAAAA", "01JBBBBBBBBBBBBBBBBBBBBBBB"]
    assert reader.skipped == 1
    assert f"{path}:3: invalid JSON" in caplog.text
