"""Bad input: a clear error naming the file, the line or JSON path, and what was expected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from monologue_openhands import load_session, read_session

from monologue.errors import NotMyFormat, RecordingError

FIXTURES = Path(__file__).parent / "fixtures"


def test_truncated_array(tmp_path: Path) -> None:
    path = tmp_path / "cut.json"
    path.write_text((FIXTURES / "events.json").read_text()[:900])
    with pytest.raises(RecordingError, match=r"cut\.json:\d+: invalid JSON: .*truncated\?"):
        list(read_session(path))


def test_truncated_last_line_comes_after_the_good_events(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    lines = (FIXTURES / "events.jsonl").read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:3]) + lines[3][:40])
    source = iter(read_session(path))
    good = [next(source).type for _ in range(3)]
    assert good == ["user_message", "text", "tool_call"]
    with pytest.raises(RecordingError, match=r"cut\.jsonl:4: invalid JSON"):
        next(source)


def test_wrong_shape_names_the_index_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    events = json.loads((FIXTURES / "events.json").read_text())
    events[5]["id"] = "five"
    path.write_text(json.dumps(events))
    with pytest.raises(
        RecordingError, match=r"bad\.json: not an OpenHands event: at \$\[5\]\.id: "
    ):
        list(read_session(path))


def test_an_event_both_action_and_observation(tmp_path: Path) -> None:
    path = tmp_path / "both.jsonl"
    path.write_text(json.dumps({"id": 1, "source": "agent", "action": "run", "observation": "run"}))
    with pytest.raises(RecordingError, match=r"both\.jsonl:1: .*exactly one of 'action' and"):
        list(read_session(path))


def test_another_frameworks_file_is_refused_with_a_reason(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    with pytest.raises(NotMyFormat, match="no 'source' and 'action' / 'observation'"):
        load_session(path)
    with pytest.raises(RecordingError, match=r"chat\.json: not an OpenHands event stream: "):
        read_session(path)
