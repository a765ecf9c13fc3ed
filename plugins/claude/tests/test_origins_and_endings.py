"""What the narrator needs to stay true: where each user message came from, how the run
ended, the new shapes read (hook payload logs, golden recordings, a sub-agent's file copied
out of its folder), and the ids that tell background jobs apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES
from monologue_claude import read_session
from monologue_claude.golden import GoldenFile
from pytest_monologue import PluginSandbox


def origins(events: list) -> list[tuple[str, str | None]]:
    return [(e.data["text"][:24], e.data.get("origin")) for e in events if e.type == "user_message"]


def test_injected_messages_are_told_apart_from_the_users() -> None:
    events = list(read_session(FIXTURES / "origins.jsonl"))
    assert origins(events) == [
        ("This session is being co", "compaction"),
        ("<command-name>/status</c", "command_output"),
        ("fix the retry loop in sr", "user"),
        # Typed while the agent worked, handed over as a queued_command attachment.
        ("check again", "user"),
        ("<task-notification>\n<tas", "task_notification"),
        ("<system-reminder>The Tod", "system_reminder"),
        # Claude Code's note of an interruption: no prompt, left to the narrator's rules.
        ("[Request interrupted by ", None),
    ]
    notice = next(e for e in events if e.data.get("origin") == "task_notification")
    assert notice.data["task"] == {
        "id": "b7x2",
        "tool_use_id": "toolu_BG",
        "status": "failed",
        "summary": 'Background command "npm test" failed with exit code 1',
    }


def test_job_polls_carry_the_jobs_id() -> None:
    events = list(read_session(FIXTURES / "origins.jsonl"))
    poll = next(e for e in events if e.data.get("tool_name") == "BashOutput")
    assert poll.data["input"]["bash_id"] == poll.data["job_id"] == "b7x2"
    launch = next(e for e in events if e.type == "tool_result" and e.data["tool_name"] == "Bash")
    assert launch.data["job_id"] == "b7x2"  # the job its later polls name


def test_a_run_the_user_stopped_ends_interrupted() -> None:
    *_, end = read_session(FIXTURES / "origins.jsonl")
    assert (end.type, end.data["ending"]) == ("completion", "interrupted")


def test_a_transcript_ending_on_a_call_without_result_is_cut_off() -> None:
    *_, call, end = read_session(FIXTURES / "cut_off.jsonl")
    assert call.type == "tool_call"
    assert (end.type, end.data["ending"], end.data["result"]) == ("completion", "cut_off", None)


def test_a_sub_agents_file_copied_out_of_its_folder_speaks_for_itself(tmp_path: Path) -> None:
    lines = (FIXTURES / "sidechain.jsonl").read_text().splitlines()
    own = [line for line in lines if json.loads(line).get("isSidechain")]
    path = tmp_path / "a2898e3.jsonl"
    path.write_text("\n".join(own) + "\n")
    source = read_session(path)
    events = list(source)
    assert source.agent.startswith("Review the staged diff")
    # The main agent's events: told in the first person, never under a hex id.
    assert {e.agent for e in events} == {""}
    assert events[0].type == "subagent_task"


def test_hook_payloads_replay_as_a_conversation(claude: PluginSandbox) -> None:
    source = claude.hooks.load_session(FIXTURES / "hooks.jsonl")
    events = list(source or [])
    rows = [(e.type, e.agent, e.data.get("tool_name") or e.data.get("origin")) for e in events]
    assert rows == [
        ("user_message", "", "user"),
        ("tool_call", "", "Agent"),
        ("tool_call", "claude/Explore", "Grep"),
        ("tool_result", "claude/Explore", "Grep"),
        ("text", "claude/Explore", None),
        # The untyped SubagentStop (a prompt-suggestion fork) is left out.
        ("tool_result", "", "Agent"),
        ("tool_call", "", "Read"),
        ("tool_result", "", "Read"),
        ("text", "", None),
        ("completion", "", None),
        ("user_message", "", "task_notification"),
        ("completion", "", None),
    ]
    call, result = (e for e in events if e.data.get("tool_name") == "Read")
    # Claude Code 1.0 sends no tool_use_id: the result pairs with its call by input.
    assert call.data["tool_use_id"] == result.data["tool_use_id"]
    agent = next(e for e in events if e.data.get("tool_name") == "Agent")
    assert agent.data["input"]["description"] == "Find retry config"
    assert [e.data["ending"] for e in events if e.type == "completion"] == [
        "completed",
        "cut_off",
    ]


def test_a_golden_recording_reads_its_messages_under_its_scenario(
    claude: PluginSandbox, tmp_path: Path
) -> None:
    source = claude.hooks.load_session(FIXTURES / "golden.json")
    assert isinstance(source, GoldenFile)
    assert source.title == "read-app"
    events = list(source)
    assert [e.type for e in events] == [
        "text",
        "tool_call",
        "tool_result",
        "user_message",
        "text",
        "completion",
    ]
    assert events[1].data["input"] == {"file_path": "src/app.py"}
    assert events[3].data["origin"] == "system_reminder"
    assert events[-1].data["ending"] == "completed"

    broken = tmp_path / "broken.json"
    document = json.loads((FIXTURES / "golden.json").read_text())
    document["messages"][2]["message"]["content"][0]["input"] = "src/app.py"
    broken.write_text(json.dumps(document))
    from monologue.errors import RecordingError

    with pytest.raises(RecordingError) as caught:
        list(GoldenFile(broken))
    assert caught.value.problem.startswith("messages[2]: assistant message: message.content.0")


def test_a_sub_agents_report_in_a_hook_log_is_its_text_not_json(
    claude: PluginSandbox, tmp_path: Path
) -> None:
    """PostToolUse for Task carries ``{"content": [text blocks], "totalTokens": ...}``: the
    result is the report's text, which the narrator quotes, never the raw JSON."""
    base = {"session_id": "h2", "cwd": "/p", "tool_name": "Task", "tool_use_id": "toolu_T"}
    report = {"content": [{"type": "text", "text": "The limit is 3 in config.py."}],
              "totalTokens": 12}  # fmt: skip
    payloads = [
        {**base, "hook_event_name": "PreToolUse", "tool_input": {"description": "Find it"}},
        {**base, "hook_event_name": "PostToolUse", "tool_response": report},
        {"session_id": "h2", "cwd": "/p", "hook_event_name": "Stop"},
    ]
    log = tmp_path / "hooks.jsonl"
    log.write_text("".join(json.dumps(payload) + "\n" for payload in payloads))
    events = list(claude.hooks.load_session(log) or [])
    (result,) = (e for e in events if e.type == "tool_result")
    assert result.data["output"] == "The limit is 3 in config.py."


def test_a_commands_result_in_a_hook_log_is_what_it_printed() -> None:
    from monologue_claude.convert import tool_output

    printed = {"stdout": "2 failed, 3 passed", "stderr": "warning: slow", "interrupted": False}
    assert tool_output(printed) == "2 failed, 3 passed\nwarning: slow"
    assert tool_output({"stdout": "", "stderr": ""}) == ""
    assert tool_output({"mode": "content", "numFiles": 0}) == {"mode": "content", "numFiles": 0}
