"""Bad input: one clear error naming the file, the line and the problem, after the events of
the lines before it."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, json_values
from monologue_claude import read_session

from monologue.errors import RecordingError
from monologue.events import Event
from monologue.lines import MAX_LINE_BYTES

GOOD = {
    "type": "assistant",
    "sessionId": "s",
    "timestamp": "2026-01-01T00:00:00Z",
    "message": {"id": "m", "content": [{"type": "text", "text": "Looking."}]},
}


def write_lines(path: Path, *lines: bytes) -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def encode(obj: Any) -> bytes:
    return json.dumps(obj).encode()


def read_until_error(path: Path) -> tuple[list[str], RecordingError]:
    """The types of the events produced before the error, and the error."""
    produced: list[str] = []
    with pytest.raises(RecordingError) as caught:
        collect_types(read_session(path), produced)
    return produced, caught.value


def collect_types(events: Iterable[Event], into: list[str]) -> None:
    for event in events:
        into.append(event.type)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(RecordingError) as caught:
        read_session(tmp_path / "nope.jsonl")
    assert str(caught.value) == f"{tmp_path / 'nope.jsonl'}: no such file"
    assert caught.value.line is None


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="is a directory, not a file"):
        read_session(tmp_path)


def test_unknown_format(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text('{"hello": "world"}\n')
    with pytest.raises(RecordingError, match=r"notes\.jsonl: not a Claude Code transcript"):
        read_session(path)


def test_file_removed_after_it_was_recognised(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "gone.jsonl", encode(GOOD))
    source = read_session(path)
    path.unlink()
    with pytest.raises(RecordingError, match=r"gone\.jsonl: cannot read: No such file"):
        list(source)


def test_invalid_json_names_the_line_after_the_good_events(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", encode(GOOD), encode(GOOD), b'{"type": "user", ')
    produced, error = read_until_error(path)
    assert produced == ["text", "text"]
    assert error.line == 3
    assert str(error).startswith(f"{path}:3: invalid JSON: Expecting property name")


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            {
                "message": {
                    "content": [{"type": "tool_use", "id": "t", "name": "Read", "input": []}]
                }
            },
            "assistant message: message.content.0.input: Input should be a valid dictionary",
        ),
        (
            {"message": {"content": 42}},
            "assistant message: message.content: Input should be a valid list",
        ),
        (
            {"message": {"content": [{"type": "tool_result", "tool_use_id": 7}]}},
            "message.content.0.tool_use_id: Input should be a valid string",
        ),
        (
            {
                "message": {
                    "content": [{"type": "tool_result", "tool_use_id": "t", "is_error": "no"}]
                }
            },
            "message.content.0.is_error: Input should be a valid boolean",
        ),
        (
            {"message": {"content": ["just text"]}},
            "message.content.0: Input should be a valid dictionary",
        ),
        ({"timestamp": "yesterday"}, "assistant message: timestamp: Input should be a valid"),
        ({"isSidechain": "yes"}, "isSidechain: Input should be a valid boolean"),
        ({"message": "hello"}, "assistant message: message: Input should be a valid dictionary"),
        ({"type": 3}, "type: Input should be a valid string, got a number"),
    ],
)
def test_wrong_field_types_name_the_field(
    tmp_path: Path, change: dict[str, Any], problem: str
) -> None:
    path = write_lines(tmp_path / "t.jsonl", encode(GOOD), encode({**GOOD, **change}))
    produced, error = read_until_error(path)
    assert produced == ["text"]
    assert error.line == 2
    assert problem in error.problem


def test_wrong_types_in_a_subagent_message(tmp_path: Path) -> None:
    progress = {
        "type": "progress",
        "sessionId": "s",
        "parentToolUseID": "toolu_1",
        "data": {"type": "agent_progress", "message": {"type": "assistant", "message": []}},
    }
    path = write_lines(tmp_path / "t.jsonl", encode(GOOD), encode(progress))
    _, error = read_until_error(path)
    assert error.line == 2
    assert "agent_progress message: data.message.message: Input should be a valid" in str(error)


def test_a_line_that_is_not_an_object(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", encode(GOOD), b"[1, 2]")
    _, error = read_until_error(path)
    assert str(error) == f"{path}:2: expected a JSON object, got an array"


def test_invalid_utf8(tmp_path: Path) -> None:
    bad = encode(GOOD).replace(b"Looking.", b"Look\xffing.")
    path = write_lines(tmp_path / "t.jsonl", encode(GOOD), encode(GOOD), bad)
    produced, error = read_until_error(path)
    assert produced == ["text", "text"]
    assert error.line == 3
    assert "invalid UTF-8: byte b'\\xff' at offset" in error.problem


def test_a_line_of_several_megabytes(tmp_path: Path) -> None:
    huge = dict(GOOD, message={"content": [{"type": "text", "text": "x" * (9 * 1024 * 1024)}]})
    path = write_lines(tmp_path / "t.jsonl", encode(GOOD), encode(huge), encode(GOOD))
    produced, error = read_until_error(path)
    assert produced == ["text"]
    assert error.line == 2
    assert f"longer than the limit of {MAX_LINE_BYTES:,} bytes" in error.problem


def test_a_line_just_under_the_limit_is_read(tmp_path: Path) -> None:
    message = encode(GOOD)
    text = "y" * (MAX_LINE_BYTES - len(message) - 1)
    big = encode(dict(GOOD, message={"content": [{"type": "text", "text": text}]}))
    assert len(big) <= MAX_LINE_BYTES
    path = write_lines(tmp_path / "t.jsonl", big, encode(GOOD))
    events = [e for e in read_session(path) if e.type != "completion"]
    assert [len(e.data["text"]) for e in events] == [len(text), 8]


@pytest.fixture
def array_lines() -> list[str]:
    """The stream-json fixture as a JSON array, one element per line."""
    elements = [json.dumps(m) for m in json_values(FIXTURES / "stream.jsonl")]
    return ["[", *[e + "," for e in elements[:-1]], elements[-1], "]"]


def test_array_element_with_invalid_json(tmp_path: Path, array_lines: list[str]) -> None:
    array_lines[4] = array_lines[4].replace('"content"', '"content" "', 1)
    path = tmp_path / "a.json"
    path.write_text("\n".join(array_lines))
    produced, error = read_until_error(path)
    assert produced == ["text", "tool_call"]
    assert error.line == 5
    assert "invalid JSON" in error.problem


def test_array_element_of_the_wrong_shape(tmp_path: Path, array_lines: list[str]) -> None:
    array_lines[3] = array_lines[3].replace('"name": "Read"', '"name": null')
    path = tmp_path / "a.json"
    path.write_text("\n".join(array_lines))
    produced, error = read_until_error(path)
    assert produced == ["text"]
    assert error.line == 4
    assert "message.content.0.name: Input should be a valid string" in error.problem


def test_array_cut_short(tmp_path: Path, array_lines: list[str]) -> None:
    path = tmp_path / "a.json"
    path.write_text("\n".join(array_lines[:-1]))
    produced, error = read_until_error(path)
    assert len(produced) == 13
    assert "unexpected end of file: the JSON array is not closed" in error.problem


def test_array_with_invalid_utf8(tmp_path: Path, array_lines: list[str]) -> None:
    path = tmp_path / "a.json"
    data = "\n".join(array_lines).encode().replace(b"3 passed", b"3 pass\xc3ed")
    path.write_bytes(data)
    produced, error = read_until_error(path)
    assert produced == [
        "text",
        "tool_call",
        "tool_call",
        "tool_result",
        "tool_result",
        "tool_call",
        "tool_call",
    ]
    assert error.line == 10
    assert "invalid UTF-8" in error.problem


def test_array_with_data_after_it(tmp_path: Path, array_lines: list[str]) -> None:
    path = tmp_path / "a.json"
    path.write_text("\n".join([*array_lines, "{}"]))
    _, error = read_until_error(path)
    assert error.line == len(array_lines) + 1
    assert "unexpected data after the JSON array" in error.problem


def test_damaged_first_line_of_a_transcript_is_reported_not_unknown(tmp_path: Path) -> None:
    first = (FIXTURES / "transcript.jsonl").read_bytes().split(b"\n")[2]
    path = write_lines(tmp_path / "t.jsonl", first[: len(first) // 2])
    _, error = read_until_error(path)
    assert error.line == 1
    assert "invalid JSON" in error.problem
