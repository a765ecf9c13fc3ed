"""A transcript with a ``<session>/subagents/`` folder replays as one story, in time order,
each sub-agent's work attributed to it by the name of the call that launched it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES
from monologue_claude import read_session
from pytest_monologue import PluginSandbox

from monologue.errors import RecordingError

FOLDER = FIXTURES / "subagents-session"
SESSION = FOLDER / "5d1e0c2a-1111-4222-8333-944455556666.jsonl"


def test_subagent_files_merge_in_time_order_under_their_names() -> None:
    events = list(read_session(SESSION))
    rows = [
        (e.type, e.agent, e.data.get("tool_name") or e.data.get("text", "")[:20]) for e in events
    ]
    assert rows == [
        ("user_message", "", "Rename load_config t"),
        ("tool_call", "", "Task"),
        ("tool_call", "", "Task"),
        ("tool_call", "claude/Explore", "Grep"),
        ("tool_call", "claude/Check tests", "Bash"),
        ("tool_result", "claude/Explore", "Grep"),
        ("tool_result", "claude/Check tests", "Bash"),
        ("text", "claude/Explore", "Callers: src/cli.py,"),
        ("tool_result", "", "Task"),
        ("tool_result", "", "Task"),
        ("tool_call", "", "Edit"),
        ("tool_result", "", "Edit"),
        ("completion", "", ""),
    ]
    # The agent never answered the edit's result: the transcript ends mid-turn.
    assert events[-1].data["ending"] == "cut_off"
    assert [e.ts for e in events] == sorted(e.ts for e in events)
    grep = next(e for e in events if e.data.get("tool_name") == "Grep")
    assert grep.data["input"] == {
        "pattern": "load_config",
        "path": "src",
    }  # the file's, not progress


def test_without_the_folder_the_transcript_reads_alone(tmp_path: Path) -> None:
    alone = tmp_path / SESSION.name
    shutil.copy(SESSION, alone)
    agents = {e.agent for e in read_session(alone)}
    assert agents == {"", "claude/Explore"}  # only what the parent's progress line carries


def test_a_replay_narrates_the_subagents_by_name(monologue_plugins: PluginSandbox) -> None:
    monologue_plugins.load("claude", "template", "buffer")
    replayed = monologue_plugins.replay(SESSION, agent="claude", narrator="template")
    assert replayed.reader == "claude"
    for tool, name in (("Grep", "Explore"), ("Bash", "Check tests")):
        call = next(e for e in replayed.of_type("tool_call") if e.data["tool_name"] == tool)
        assert call.agent == f"claude/{name}"
        assert f'My "{name}" sub-agent' in (replayed.narrative_of(call) or "")


def test_a_bad_subagent_line_names_the_subagent_file(tmp_path: Path) -> None:
    copy = tmp_path / "s"
    shutil.copytree(FOLDER, copy)
    bad = copy / SESSION.stem / "subagents" / "agent-e5f6a7b8.jsonl"
    lines = bad.read_text().splitlines()
    lines[1] = json.dumps({**json.loads(lines[1]), "message": {"content": 7}})
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordingError, match=rf"{bad}:2: assistant message: message\.content"):
        list(read_session(copy / SESSION.name))
