"""Every hook payload (the fixtures, and all 141 shared ones when present) into events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES, SHARED_TRACES, payload_lines
from monologue_claude_hooks.payloads import HookPayloadError, HookSession, parse_payload

SHARED_HOOKS = SHARED_TRACES / "claude-code-hooks"


def sources() -> list[Path]:
    found = [FIXTURES / "hook-payloads.jsonl"]
    if SHARED_HOOKS.is_dir():
        found += sorted(SHARED_HOOKS.glob("*.jsonl"))
    return found


@pytest.mark.parametrize("path", sources(), ids=lambda p: p.name)
def test_every_payload_becomes_events(path: Path) -> None:
    sessions: dict[str, HookSession] = {}
    results = 0
    for line in payload_lines(path):
        payload = parse_payload(line)
        translator = sessions.setdefault(payload["session_id"], HookSession())
        step = translator.step(payload)
        hook = payload["hook_event_name"]
        kinds = [event.type for event in step.events]
        if hook == "PreToolUse":
            assert "tool_call" in kinds
        if hook == "PostToolUse":
            (result,) = [e for e in step.events if e.type == "tool_result"]
            results += 1
            response = payload["tool_response"]
            output = result.data["output"]
            # Objects are kept as JSON, but for a command's print-out and a sub-agent's
            # report (text blocks); strings and lists of content blocks become text.
            blocks = response.get("content") if isinstance(response, dict) else None
            if isinstance(response, dict) and isinstance(response.get("stdout"), str):
                printed = (response["stdout"], response.get("stderr"))
                assert output == "\n".join(part for part in printed if part)
            elif isinstance(response, dict) and isinstance(blocks, list) and blocks:
                assert all(block["text"] in output for block in blocks)
            elif isinstance(response, dict):
                assert output == json.loads(json.dumps(response))
            elif isinstance(response, str):
                assert output == response
            else:
                texts = [b["text"] for b in response if isinstance(b, dict) and "text" in b]
                assert texts and all(text in output for text in texts)
            assert result.data["tool_name"] == payload["tool_name"]
        if hook == "UserPromptSubmit":
            (message,) = step.events
            assert message.data["text"] == payload["prompt"]
            assert message.data["origin"] in ("user", "task_notification")
        if hook == "Stop":
            assert kinds == ["completion"]
    assert results > 0 or "TomSelander" in path.name  # that source logged no PostToolUse


def test_tool_response_shapes_are_all_in_the_fixtures() -> None:
    shapes = {
        type(json.loads(line)["tool_response"]).__name__
        for line in payload_lines(FIXTURES / "hook-payloads.jsonl")
        if b'"PostToolUse"' in line
    }
    assert shapes == {"dict", "str", "list"}


def test_older_payloads_without_tool_use_id_pair_by_input() -> None:
    translator = HookSession()
    call = {
        "session_id": "s",
        "hook_event_name": "PreToolUse",
        "tool_name": "LS",
        "tool_input": {"path": "/tmp"},
    }
    other = {**call, "tool_input": {"path": "/etc"}}
    (first,) = translator.step(call).events
    (second,) = translator.step(other).events
    (result,) = translator.step(
        {**other, "hook_event_name": "PostToolUse", "tool_response": "etc listing"}
    ).events
    assert result.data["tool_use_id"] == second.data["tool_use_id"] != first.data["tool_use_id"]


def test_a_result_whose_call_was_never_seen_brings_its_call() -> None:
    translator = HookSession()
    payload = {
        "session_id": "s",
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "false"},
        "tool_use_id": "t1",
        "error": "exit 1",
    }
    call, result = translator.step(payload).events
    assert call.type == "tool_call" and call.data["input"] == {"command": "false"}
    assert result.data["is_error"] is True and result.data["output"] == "exit 1"


def test_subagent_calls_are_named_after_their_type() -> None:
    translator = HookSession()
    payload = {
        "session_id": "s",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "t2",
        "agent_id": "a1",
        "agent_type": "Explore",
    }
    (call,) = translator.step(payload).events
    assert call.agent == "claude/Explore"
    # Claude Code's own forks (no type) are not the agent's work.
    fork = {
        "session_id": "s",
        "hook_event_name": "SubagentStop",
        "agent_id": "a2",
        "agent_type": "",
        "last_assistant_message": "suggested prompt",
    }
    assert translator.step(fork).events == []


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"not json", "not JSON"),
        (b"[1, 2]", "not an object"),
        (b'{"hook_event_name": "Stop"}', "session_id"),
        (b'{"session_id": "s"}', "hook_event_name"),
    ],
)
def test_malformed_payloads_are_refused_with_the_reason(data: bytes, problem: str) -> None:
    with pytest.raises(HookPayloadError, match=problem):
        parse_payload(data)


def test_the_transcript_gives_the_assistant_text_and_unreported_prompts(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    lines = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "fix the bug"}},
        {
            "type": "assistant",
            "uuid": "a1",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Looking."}]},
        },
        {
            "type": "assistant",
            "uuid": "a2",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t", "name": "Read", "input": {"file_path": "a.py"}}
                ],
            },
        },
    ]
    translator = HookSession()
    base = {"session_id": "s", "transcript_path": str(transcript)}
    translator.step({**base, "hook_event_name": "SessionStart", "source": "startup"})
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    step = translator.step(
        {
            **base,
            "hook_event_name": "PreToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": "a.py"},
            "tool_use_id": "t",
        }
    )
    assert [(e.type, e.data.get("text")) for e in step.events] == [
        ("user_message", "fix the bug"),
        ("text", "Looking."),
        ("tool_call", None),
    ]
    # A torn last line waits for the rest.
    with transcript.open("a") as handle:
        handle.write('{"type": "assistant", "uuid": "a3", "message": {"content": "Do')
    assert translator.transcript is not None and translator.transcript.read() == []
    with transcript.open("a") as handle:
        handle.write('ne."}}\n')
    assert [p.text for p in translator.transcript.read()] == ["Done."]


def test_a_resumed_session_does_not_replay_its_old_transcript(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    old = {"type": "user", "uuid": "u0", "message": {"role": "user", "content": "old prompt"}}
    transcript.write_text(json.dumps(old) + "\n")
    translator = HookSession()
    base = {"session_id": "s", "transcript_path": str(transcript)}
    assert (
        translator.step({**base, "hook_event_name": "SessionStart", "source": "resume"}).events
        == []
    )
    step = translator.step({**base, "hook_event_name": "Notification", "message": "waiting"})
    assert [e.type for e in step.events] == ["hint"]
