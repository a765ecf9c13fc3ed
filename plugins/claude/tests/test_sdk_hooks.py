"""``sdk_hooks()``: a Claude Agent SDK run narrated through its hooks.

The SDK's real ``query()`` drives a real subprocess in place of the ``claude`` CLI (which
would need the network): ``pytest_monologue.claude.FakeClaude`` answers the SDK's control
protocol and asks it to run the registered hook callbacks with the inputs the CLI sends,
while the caller's loop stays exactly as it would be without monologue.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pytest_monologue import MockNarrator, PluginSandbox

from monologue import Session, hookimpl, monologue
from monologue.events import Event

sdk = pytest.importorskip("claude_agent_sdk")
from claude_agent_sdk import (  # type: ignore[import-not-found,unused-ignore]  # noqa: E402
    ClaudeAgentOptions,
    ResultMessage,
    query,
)
from monologue_claude import sdk_hooks  # noqa: E402
from pytest_monologue.claude import FakeClaude  # noqa: E402

SESSION = "5d1c1b0e-9a8f-4d7e-b6c5-a4b3c2d1e0f9"
MODEL = "claude-sonnet-4-5"
FINAL = "RETRIES is now configurable; the tests pass."


def hook(event: str, **fields: Any) -> dict[str, Any]:
    return {
        "hook": event,
        "input": {
            "session_id": SESSION,
            "transcript_path": f"/home/user/.claude/projects/-app/{SESSION}.jsonl",
            "cwd": "/app",
            "permission_mode": "default",
            "hook_event_name": event,
            **fields,
        },
    }


def send(kind: str, content: list[dict[str, Any]], parent: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message.update(model=MODEL, id=f"msg_{len(json.dumps(content))}")
    return {
        "send": {
            "type": kind,
            "message": message,
            "parent_tool_use_id": parent,
            "session_id": SESSION,
        }
    }


def tool_use(tool_id: str, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


def tool_result(tool_id: str, content: str, is_error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content, "is_error": is_error}


def tool_run(
    tool_id: str,
    name: str,
    tool_input: dict[str, Any],
    answer: str,
    parent: str | None = None,
    **after: Any,
) -> list[dict[str, Any]]:
    """One tool call as the CLI runs it: the message, PreToolUse, the tool, PostToolUse (or
    PostToolUseFailure when ``after`` holds an ``error``), the result message."""
    sub_agent = {"agent_id": "a61c0ffee", "agent_type": "Explore"} if parent else {}
    fields = {"tool_name": name, "tool_input": tool_input, "tool_use_id": tool_id, **sub_agent}
    failed = "error" in after
    return [
        send("assistant", [tool_use(tool_id, name, tool_input)], parent),
        hook("PreToolUse", **fields),
        hook("PostToolUseFailure" if failed else "PostToolUse", **fields, **after),
        send("user", [tool_result(tool_id, answer, is_error=failed)], parent),
    ]


READ = {"file_path": "/app/config.py"}
PYTEST = {"command": "pytest -q", "description": "Run the tests"}

RUN: list[dict[str, Any]] = [
    {
        "send": {
            "type": "system",
            "subtype": "init",
            "session_id": SESSION,
            "uuid": "11111111-2222-4333-8444-555555555555",
            "cwd": "/app",
            "tools": ["Read", "Bash", "Task", "Grep"],
            "model": MODEL,
            "claude_code_version": "2.1.38",
            "permissionMode": "default",
            "apiKeySource": "none",
        }
    },
    send("assistant", [{"type": "text", "text": "I'll read the config."}]),
    *tool_run(
        "toolu_1",
        "Read",
        READ,
        "1\tN = 3",
        tool_response={"type": "text", "file": {"filePath": "/app/config.py", "content": "N = 3"}},
    ),
    *tool_run(
        "toolu_2",
        "Bash",
        PYTEST,
        "Exit code 1\nFAILED",
        error="Exit code 1\nFAILED tests/test_retry.py::test_limit",
    ),
    send(
        "assistant", [tool_use("toolu_3", "Task", {"description": "Find callers", "prompt": "p"})]
    ),
    *tool_run(
        "toolu_4",
        "Grep",
        {"pattern": "retry\\("},
        "No files found",
        parent="toolu_3",
        tool_response={"mode": "files_with_matches", "filenames": [], "numFiles": 0},
    ),
    send("user", [tool_result("toolu_3", "No callers.")]),
    send("assistant", [{"type": "text", "text": FINAL}]),
    hook("Stop", stop_hook_active=False, last_assistant_message=FINAL),
    {
        "send": {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "duration_ms": 4100,
            "duration_api_ms": 3000,
            "num_turns": 5,
            "result": FINAL,
            "session_id": SESSION,
            "total_cost_usd": 0.01,
        }
    },
]


class Collect:
    """Records what every session of the sandbox sees."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.completed: list[Session] = []

    @hookimpl
    def on_event(self, session: Session, event: Event) -> None:
        self.events.append(event)

    @hookimpl
    def on_complete(self, session: Session, event: Event) -> None:
        self.completed.append(session)

    def rows(self) -> list[tuple[str, str, Any]]:
        return [
            (e.type, e.agent, e.data.get("tool_name") or e.data.get("result"))
            for e in self.events
            if e.type != "narrative"
        ]


@pytest.fixture
def collect(claude: PluginSandbox) -> Collect:
    return claude.register(Collect(), "collect")  # type: ignore[no-any-return]


@pytest.fixture
def cli(tmp_path: Path) -> FakeClaude:
    """An executable standing in for ``claude``, logging the hook answers it got."""
    return FakeClaude.create(tmp_path / "fake", [{"match": [], "steps": RUN}])


async def run_query(cli_path: Path, hooks: dict[Any, list[Any]]) -> list[Any]:
    """The caller's loop, exactly as without monologue."""
    options = ClaudeAgentOptions(cli_path=cli_path, hooks=hooks)
    return [message async for message in query(prompt="Make retries configurable", options=options)]


async def test_hooks_open_narrate_and_close_a_session(
    claude: PluginSandbox, collect: Collect, mock_narrator: MockNarrator, cli: FakeClaude
) -> None:
    heard: list[Event] = []
    messages = await run_query(cli.cli, sdk_hooks(agent="fixer", on_narrative=heard.append))
    assert isinstance(messages[-1], ResultMessage)
    assert collect.rows() == [
        ("tool_call", "fixer", "Read"),
        ("tool_result", "fixer", "Read"),
        ("tool_call", "fixer", "Bash"),
        ("tool_result", "fixer", "Bash"),
        ("tool_call", "fixer/Explore", "Grep"),
        ("tool_result", "fixer/Explore", "Grep"),
        ("completion", "fixer", FINAL),
    ]
    by_type = {(e.type, e.data.get("tool_use_id")): e.data for e in collect.events}
    assert by_type[("tool_result", "toolu_2")]["is_error"] is True
    assert "FAILED tests/test_retry.py" in by_type[("tool_result", "toolu_2")]["output"]
    assert by_type[("tool_result", "toolu_1")]["output"]["file"]["content"] == "N = 3"
    # Closed at Stop, after the final narration, before the run's result arrived.
    (session,) = collect.completed
    assert session.closed
    assert mock_narrator.calls[-1].reason == "final"
    assert [e.type for e in collect.events][-1] == "narrative"
    assert heard == [e for e in collect.events if e.type == "narrative"]
    assert [hook for hook, _ in cli.hook_answers()] == [
        "PreToolUse",
        "PostToolUse",
        "PreToolUse",
        "PostToolUseFailure",
        "PreToolUse",
        "PostToolUse",
        "Stop",
    ]
    assert {json.dumps(answer) for _, answer in cli.hook_answers()} == {"{}"}


async def test_hooks_report_to_the_current_session(
    claude: PluginSandbox, collect: Collect, cli: FakeClaude
) -> None:
    hooks = sdk_hooks()
    async with claude.session("outer") as outer:
        await run_query(cli.cli, hooks)
        assert not outer.closed  # the caller's session is the caller's to close
        assert outer.stats.tool_calls == 3
    assert {e.session_id for e in collect.events} == {outer.id}
    assert ("tool_call", "outer/Explore", "Grep") in collect.rows()
    assert len(collect.completed) == 1


async def test_hooks_and_yielded_messages_report_each_call_once(
    claude: PluginSandbox, collect: Collect, mock_narrator: MockNarrator, cli: FakeClaude
) -> None:
    @monologue("both")
    async def agent() -> AsyncIterator[Any]:
        options = ClaudeAgentOptions(cli_path=cli.cli, hooks=sdk_hooks())
        async for message in query(prompt="Make retries configurable", options=options):
            yield message

    messages = [message async for message in agent()]
    assert isinstance(messages[-1], ResultMessage)
    (session,) = collect.completed
    assert session.stats.tool_calls == 4  # Read, Bash, Task, and the sub-agent's Grep
    calls = [e.data["tool_use_id"] for e in collect.events if e.type == "tool_call"]
    results = [e.data["tool_use_id"] for e in collect.events if e.type == "tool_result"]
    assert sorted(calls) == sorted(set(calls)) == ["toolu_1", "toolu_2", "toolu_3", "toolu_4"]
    assert sorted(results) == sorted(set(results)) == ["toolu_1", "toolu_2", "toolu_3", "toolu_4"]
    assert mock_narrator.calls


async def test_a_failing_hook_is_logged_and_the_run_goes_on(
    claude: PluginSandbox, cli: FakeClaude, caplog: pytest.LogCaptureFixture
) -> None:
    never_started = Session("broken")  # dispatching into it raises
    with caplog.at_level(logging.ERROR, logger="monologue.claude"):
        messages = await run_query(cli.cli, sdk_hooks(never_started))
    assert isinstance(messages[-1], ResultMessage)
    assert len(cli.hook_answers()) == 7
    assert {json.dumps(answer) for _, answer in cli.hook_answers()} == {"{}"}
    assert "PreToolUse hook failed" in caplog.text


def test_without_the_sdk_the_error_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "claude_agent_sdk", None)
    with pytest.raises(ImportError, match="pip install claude-agent-sdk"):
        sdk_hooks()
