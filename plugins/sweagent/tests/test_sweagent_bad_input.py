"""Bad input: a clear error naming the file, the line or JSON path, and what was expected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from monologue_sweagent import read_session
from pytest_monologue import PluginSandbox

from monologue.errors import NotMyFormat, RecordingError, UnknownFormat

FIXTURES = Path(__file__).parent / "fixtures"


def test_truncated_trajectory_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "cut.traj"
    text = (FIXTURES / "function_calling.traj").read_text()
    path.write_text(text[: len(text) // 2])
    with pytest.raises(
        RecordingError, match=r"cut\.traj:\d+: invalid JSON: .* is the file truncated\?"
    ):
        list(read_session(path))


def test_wrong_shape_names_the_json_path(tmp_path: Path) -> None:
    path = tmp_path / "bad.traj"
    document = json.loads((FIXTURES / "function_calling.traj").read_text())
    document["trajectory"][2]["action"] = 42
    path.write_text(json.dumps(document))
    with pytest.raises(RecordingError) as caught:
        list(read_session(path))
    assert str(caught.value).startswith(f"{path}: not a valid swe-agent file: ")
    assert "at trajectory[2].action: Input should be a valid string" in str(caught.value)


def test_a_mini_message_without_role_names_its_index(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    messages = json.loads((FIXTURES / "mini.traj.json").read_text())
    del messages[3]["role"]
    path.write_text(json.dumps(messages))
    with pytest.raises(RecordingError, match=r"at \$\[3\]\.role: Field required"):
        list(read_session(path))


def test_another_frameworks_file_is_refused_with_a_reason(tmp_path: Path) -> None:
    path = tmp_path / "events.json"
    path.write_text(json.dumps([{"id": 0, "source": "user", "action": "message", "args": {}}]))
    with pytest.raises(RecordingError, match="not a SWE-agent nor mini-swe-agent file: a JSON"):
        read_session(path)


def test_the_unknown_format_error_lists_each_reader_and_why(
    monologue_plugins: PluginSandbox, tmp_path: Path
) -> None:
    monologue_plugins.load("sweagent")
    path = tmp_path / "notes.txt"
    path.write_text("just some notes\n")
    with pytest.raises(UnknownFormat) as caught:
        monologue_plugins.hooks.open_session(path)
    assert caught.value.refusals == {
        "sweagent": "not a JSON document (starts with b'just some no')"
    }
    assert str(caught.value).startswith(f"{path}: unknown format; the readers tried said:")


def test_load_session_refuses_by_raising_not_my_format(tmp_path: Path) -> None:
    from monologue_sweagent import load_session

    path = tmp_path / "empty.json"
    path.write_text("{}")
    with pytest.raises(NotMyFormat, match="without a 'trajectory' or 'history' list"):
        load_session(path)
