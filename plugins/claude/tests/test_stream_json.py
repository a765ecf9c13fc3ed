"""stream-json output, as NDJSON and as a JSON array."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES, json_values
from monologue_claude import ClaudeFile, read_session

from monologue.events import Event


def rows(events: list[Event]) -> list[tuple[str, str, object]]:
    return [
        (e.type, e.agent, e.data.get("tool_name") or e.data.get("text") or e.data.get("result"))
        for e in events
    ]


@pytest.fixture
def as_array(tmp_path: Path) -> Path:
    """The NDJSON fixture written as a pretty-printed JSON array (``--output-format json``)."""
    path = tmp_path / "stream.json"
    path.write_text(json.dumps(list(json_values(FIXTURES / "stream.jsonl")), indent=2))
    return path


def test_messages_become_events() -> None:
    assert rows(list(read_session(FIXTURES / "stream.jsonl"))) == [
        ("text", "", "I'll read both files."),
        ("tool_call", "", "Read"),
        ("tool_call", "", "Read"),
        ("tool_result", "", "Read"),
        ("tool_result", "", "Read"),
        ("tool_call", "", "Task"),
        ("tool_call", "claude/tester", "Bash"),
        ("tool_result", "claude/tester", "Bash"),
        ("text", "claude/tester", "All 3 tests pass."),
        ("tool_result", "", "Task"),
        ("thinking", "", "a.py is fine, b.py is missing, tests pass."),
        ("text", "", "a.py prints 'a'; b.py does not exist; the tests pass."),
        ("completion", "", "a.py prints 'a'; b.py does not exist; the tests pass."),
    ]


def test_parallel_results_in_one_message_each_find_their_call() -> None:
    events = list(read_session(FIXTURES / "stream.jsonl"))
    first, second = [e.data for e in events if e.type == "tool_result"][:2]
    assert (first["tool_use_id"], first["is_error"]) == ("toolu_1", False)
    assert (second["tool_use_id"], second["is_error"]) == ("toolu_2", True)
    assert second["output"] == "File does not exist."


def test_result_message_is_the_completion_with_its_figures() -> None:
    completion = list(read_session(FIXTURES / "stream.jsonl"))[-1]
    assert completion.data == {
        "result": "a.py prints 'a'; b.py does not exist; the tests pass.",
        "is_error": False,
        "subtype": "success",
        "num_turns": 4,
        "duration_ms": 5400.0,
        "total_cost_usd": 0.0123,
        "ending": "completed",
    }


def test_a_json_array_reads_like_the_same_ndjson(as_array: Path) -> None:
    source = read_session(as_array)
    assert isinstance(source, ClaudeFile)
    assert (source.format, source.array) == ("claude-stream-json", True)
    assert rows(list(source)) == rows(list(read_session(FIXTURES / "stream.jsonl")))


def test_the_iterable_can_be_read_again(as_array: Path) -> None:
    source = read_session(as_array)
    assert len(list(source)) == len(list(source)) == 13


def test_events_are_produced_lazily(tmp_path: Path) -> None:
    path = tmp_path / "lazy.jsonl"
    path.write_bytes((FIXTURES / "stream.jsonl").read_bytes())
    events = iter(read_session(path))
    first = next(events)
    # Damage the rest of the file after the first event was read: the reader had not got
    # there yet, so it reports the damage now.
    with path.open("ab") as handle:
        handle.write(b"{not json\n")
    assert first.type == "text"
    with pytest.raises(ValueError, match=r"lazy\.jsonl:14: invalid JSON"):
        list(events)
