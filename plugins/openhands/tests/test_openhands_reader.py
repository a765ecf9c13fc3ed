"""The project's own OpenHands fixtures, read whole and followed line by line."""

from __future__ import annotations

from pathlib import Path

import pytest
from monologue_openhands import read_session
from monologue_openhands.reader import EventLineParser
from pytest_monologue import PluginSandbox

from monologue.events import Event

FIXTURES = Path(__file__).parent / "fixtures"


def summary(events: list[Event]) -> list[tuple[str, object]]:
    short = {"tool_call": "input", "tool_result": "is_error", "completion": "result"}
    return [(e.type, e.data.get(short.get(e.type, ""), e.data.get("text"))) for e in events]


def test_actions_observations_states_and_finish() -> None:
    events = list(read_session(FIXTURES / "events.json"))
    assert summary(events) == [
        ("user_message", "Fix the README link"),
        ("text", "Let me read the README first."),
        ("tool_call", {"file_path": "/workspace/README.md"}),
        ("tool_result", False),
        ("thinking", "The link points to the old docs host."),
        ("tool_call", {"url": "https://docs.example.org/"}),
        ("tool_result", False),
        ("tool_call", {"file_path": "/workspace/README.md"}),
        ("tool_result", False),
        ("tool_call", {"file_path": "/workspace/CHANGELOG.md"}),
        ("tool_result", False),
        ("text", "Check the links."),
        ("tool_call", {"command": "make linkcheck"}),
        ("tool_result", True),
        ("error", None),
        ("completion", "The README link now points at the docs host."),
        ("agent_update", None),
    ]
    calls = [e.data for e in events if e.type == "tool_call"]
    assert [c["tool_use_id"] for c in calls] == [
        "toolu_read_1", "5", "toolu_edit_2", "toolu_create_5", "toolu_run_3",
    ]  # fmt: skip
    # An older edit action keeps its editor command only in the call it translated to.
    assert [c["tool_name"] for c in calls] == ["Read", "WebFetch", "Edit", "Write", "Bash"]
    assert [c["framework_tool"] for c in calls] == ["read", "browse", "edit", "edit", "run"]
    result = next(e.data for e in events if e.type == "tool_result" and e.data["is_error"])
    assert (result["tool_use_id"], result["exit_code"], result["cause"]) == ("toolu_run_3", 2, 9)
    assert events[14].data["message"] == "LLM rate limit reached"
    assert events[-1].data["framework_state"] == "finished"
    assert events[-1].data["message"] == "finished"
    assert events[-2].data["ending"] == "completed"
    assert events[0].ts.isoformat() == "2025-03-01T10:00:00+00:00"


def test_the_jsonl_layout_reads_the_same() -> None:
    whole = summary(list(read_session(FIXTURES / "events.json")))
    assert summary(list(read_session(FIXTURES / "events.jsonl"))) == whole


def test_watch_follows_a_growing_jsonl_file(
    monologue_plugins: PluginSandbox, tmp_path: Path
) -> None:
    monologue_plugins.load("openhands")
    lines = (FIXTURES / "events.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "live.jsonl"
    path.write_bytes(lines[0])
    parser, plugin = monologue_plugins.hooks.line_parser(path)
    assert plugin == "openhands"
    assert isinstance(parser, EventLineParser)
    seen = [e for n, line in enumerate(lines, 1) for e in parser.feed(line, n)]
    seen += parser.finish()
    assert summary(seen) == summary(list(read_session(FIXTURES / "events.json")))


def test_no_line_parser_for_a_json_array(monologue_plugins: PluginSandbox) -> None:
    monologue_plugins.load("openhands")
    assert monologue_plugins.hooks.line_parser(FIXTURES / "events.json") == (None, None)


@pytest.mark.parametrize("name", ["events.json", "events.jsonl"])
def test_recognised_by_content_and_narrated_by_subject(
    monologue_plugins: PluginSandbox, tmp_path: Path, name: str
) -> None:
    monologue_plugins.load("openhands", "template", "buffer")
    renamed = tmp_path / "trajectory.txt"
    renamed.write_bytes((FIXTURES / name).read_bytes())
    replayed = monologue_plugins.replay(renamed, narrator="template")
    assert replayed.reader == "openhands"
    subjects = [
        "README.md",
        "https://docs.example.org/",
        "README.md",
        "CHANGELOG.md",
        "make linkcheck",
    ]
    for call, subject in zip(replayed.of_type("tool_call"), subjects, strict=True):
        assert subject in (replayed.narrative_of(call) or ""), subject


def test_a_stream_without_finish_ends_as_its_last_state_says(tmp_path: Path) -> None:
    path = tmp_path / "gui.jsonl"
    path.write_text(
        '{"id": 0, "source": "user", "action": "message", "args": {"content": "Make a todo app"}}\n'
        '{"id": 1, "source": "agent", "action": "run", "args": {"command": "mkdir app"}}\n'
        '{"id": 2, "source": "agent", "observation": "run", "cause": 1, "content": "",'
        ' "extras": {"metadata": {"exit_code": 0}}}\n'
        '{"id": 3, "source": "environment", "observation": "agent_state_changed",'
        ' "content": "", "extras": {"agent_state": "awaiting_user_input"}}\n'
    )
    *_, update, end = read_session(path)
    # The state in plain words, its name kept apart for programs.
    assert update.data["message"] == "waiting for the user's reply"
    assert "awaiting" not in update.data["message"]
    assert (end.type, end.data["ending"]) == ("completion", "completed")

    path.write_text("\n".join(path.read_text().splitlines()[:2]) + "\n")
    *_, call, end = read_session(path)
    assert (call.type, end.data["ending"]) == ("tool_call", "cut_off")


def test_an_mcp_call_is_its_tool_with_its_arguments_as_a_dict(tmp_path: Path) -> None:
    path = tmp_path / "mcp.jsonl"
    path.write_text(
        '{"id": 1, "source": "agent", "action": "call_tool_mcp", "args": {"name": "fetch",'
        ' "arguments": "{\\"url\\": \\"https://example.org\\"}"}}\n'
    )
    call, _ = read_session(path)
    assert (call.data["tool_name"], call.data["input"]) == ("fetch", {"url": "https://example.org"})
