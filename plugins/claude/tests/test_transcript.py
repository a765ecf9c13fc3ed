"""Claude Code transcripts: what each kind of line becomes."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from conftest import FIXTURES
from monologue_claude import TranscriptParser, read_session

from monologue.events import Event


def events_of(name: str) -> list[Event]:
    return list(read_session(FIXTURES / name))


def summary(events: Iterable[Event]) -> list[tuple[str, str, str]]:
    """(type, agent, what) per event: the tool name, or the start of the text."""
    rows = []
    for event in events:
        data = event.data
        what = data.get("tool_name") or str(data.get("text", ""))[:24]
        rows.append((event.type, event.agent, what))
    return rows


def test_lines_become_events_in_order_and_noise_is_skipped() -> None:
    events = events_of("transcript.jsonl")
    assert summary(events) == [
        ("user_message", "", "Rename fetch() to fetch_"),
        ("thinking", "", "I should find the defini"),
        ("text", "", "I'll look for the defini"),
        ("tool_call", "", "Grep"),
        ("tool_call", "", "Grep"),
        ("tool_result", "", "Grep"),
        ("tool_result", "", "Grep"),
        ("tool_call", "", "Task"),
        ("tool_call", "claude/Explore", "Grep"),
        ("tool_result", "claude/Explore", "Grep"),
        ("text", "claude/Explore", "There are no dynamic use"),
        ("tool_result", "", "Task"),
        ("tool_call", "", "Edit"),
        ("tool_result", "", "Edit"),
        ("user_message", "", "<local-command-stdout>St"),
        ("text", "", "The edit failed because "),
        ("completion", "", ""),
    ]
    # Claude Code's output of a slash command is no prompt; the agent had answered last.
    assert [e.data.get("origin") for e in events if e.type == "user_message"] == [
        "user",
        "command_output",
    ]
    assert events[-1].data["ending"] == "completed"


def test_split_assistant_message_keeps_its_blocks_and_ids() -> None:
    events = events_of("transcript.jsonl")
    calls = [e.data for e in events if e.type == "tool_call"]
    assert [c["tool_use_id"] for c in calls] == [
        "toolu_A1",
        "toolu_A2",
        "toolu_B1",
        "toolu_S1",
        "toolu_C1",
    ]
    assert calls[0]["input"] == {"pattern": "def fetch\\(", "path": "src"}


def test_results_are_matched_to_their_calls_by_id_whatever_the_order() -> None:
    results = [e.data for e in events_of("transcript.jsonl") if e.type == "tool_result"]
    by_id = {r["tool_use_id"]: r for r in results}
    assert [r["tool_use_id"] for r in results[:2]] == ["toolu_A2", "toolu_A1"]
    assert by_id["toolu_A2"]["output"] == "tests/test_api.py:3:from api import fetch"
    assert by_id["toolu_B1"]["tool_name"] == "Task"
    # A result given as content blocks reads as their text.
    assert by_id["toolu_B1"]["output"] == "There are no dynamic uses of fetch."
    assert by_id["toolu_C1"]["is_error"] is True
    assert by_id["toolu_A1"]["is_error"] is False


def test_timestamps_come_from_the_file_and_are_aware() -> None:
    events = events_of("transcript.jsonl")
    assert events[0].ts == datetime(2026, 3, 2, 9, 15, 1, 500000, tzinfo=UTC)
    assert all(e.ts.tzinfo is not None for e in events)
    assert [e.ts for e in events] == sorted(e.ts for e in events)


def test_a_timestamp_without_zone_is_taken_as_utc(tmp_path: Path) -> None:
    line = {
        "type": "user",
        "sessionId": "s",
        "timestamp": "2026-01-05T08:00:00",
        "message": {"role": "user", "content": "hello"},
    }
    path = tmp_path / "naive.jsonl"
    path.write_text(json.dumps(line) + "\n")
    event, _ = read_session(path)
    assert event.ts == datetime(2026, 1, 5, 8, tzinfo=UTC)


def test_sidechain_lines_belong_to_the_task_that_sent_their_prompt() -> None:
    assert summary(events_of("sidechain.jsonl")) == [
        ("user_message", "", "Review the staged diff."),
        ("tool_call", "", "Task"),
        # general-purpose says nothing: the sub-agent is named after its description.
        ("tool_call", "claude/Review diff", "Bash"),
        ("tool_result", "claude/Review diff", "Bash"),
        ("text", "claude/Review diff", "One bug: loop.py now run"),
        ("tool_result", "", "Task"),
        ("text", "", "The reviewer found an of"),
        ("completion", "", ""),
    ]


def test_a_tool_use_repeated_in_the_file_is_one_call() -> None:
    parser = TranscriptParser()
    line = {
        "type": "assistant",
        "sessionId": "s",
        "message": {
            "id": "msg_1",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}],
        },
    }
    first = parser.feed(json.dumps(line).encode(), 1)
    again = parser.feed(json.dumps(line).encode(), 2)
    assert [e.type for e in first] == ["tool_call"]
    assert again == []


def test_two_subagents_of_the_same_type_get_distinct_names() -> None:
    parser = TranscriptParser(agent="coder")
    tasks = {
        "type": "assistant",
        "sessionId": "s",
        "message": {
            "content": [
                {
                    "type": "tool_use",
                    "id": f"toolu_{n}",
                    "name": "Agent",
                    "input": {
                        "description": f"part {n}",
                        "prompt": "p",
                        "subagent_type": "Explore",
                    },
                }
                for n in (1, 2)
            ]
        },
    }
    parser.feed(json.dumps(tasks), 1)
    names = []
    for n in (1, 2):
        progress = {
            "type": "progress",
            "sessionId": "s",
            "parentToolUseID": f"toolu_{n}",
            "data": {
                "type": "agent_progress",
                "message": {
                    "type": "assistant",
                    "message": {"content": [{"type": "text", "text": f"sub-agent {n} here"}]},
                },
            },
        }
        (event,) = parser.feed(json.dumps(progress), n + 1)
        names.append(event.agent)
    assert names == ["coder/Explore", "coder/Explore #2"]


def test_subagent_launched_before_the_file_began_is_still_told_apart() -> None:
    parser = TranscriptParser()
    progress = {
        "type": "progress",
        "sessionId": "s",
        "parentToolUseID": "toolu_unknown",
        "data": {
            "type": "agent_progress",
            "message": {
                "type": "assistant",
                "message": {
                    "content": [{"type": "tool_use", "id": "t", "name": "Ls", "input": {}}]
                },
            },
        },
    }
    (event,) = parser.feed(json.dumps(progress), 1)
    assert event.agent == "claude/subagent"


def test_blank_lines_and_crlf_endings_are_fine(tmp_path: Path) -> None:
    source = (FIXTURES / "transcript.jsonl").read_bytes()
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(b"\n" + source.replace(b"\n", b"\r\n\r\n"))
    assert summary(read_session(path)) == summary(events_of("transcript.jsonl"))
