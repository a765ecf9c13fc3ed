"""``adapt``: Claude Agent SDK message objects (the SDK's own classes) fed to a session."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from conftest import FIXTURES
from pytest_monologue import MockNarrator, PluginSandbox

from monologue import monologue
from monologue.events import FOLDED_TYPE, Event

sdk = pytest.importorskip("claude_agent_sdk")
from claude_agent_sdk import (  # type: ignore[import-not-found,unused-ignore]  # noqa: E402
    AssistantMessage,
    ResultMessage,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from claude_agent_sdk.types import (  # type: ignore[import-not-found,unused-ignore]  # noqa: E402
    StreamEvent,
)

MODEL = "claude-sonnet-4-5"


def conversation() -> list[Any]:
    """A short run as the SDK yields it, sub-agent included."""
    return [
        SystemMessage(subtype="init", data={"type": "system", "subtype": "init", "cwd": "/app"}),
        StreamEvent(uuid="e1", session_id="s", event={"type": "message_start"}),
        AssistantMessage(
            content=[
                ThinkingBlock(
                    thinking="The config should say where retries are set.", signature="x"
                ),
                TextBlock(text="I'll read the config."),
                ToolUseBlock(id="toolu_1", name="Read", input={"file_path": "config.py"}),
                ToolUseBlock(
                    id="toolu_2",
                    name="Task",
                    input={"description": "Find callers", "prompt": "Find callers of retry()"},
                ),
            ],
            model=MODEL,
            message_id="msg_1",
        ),
        UserMessage(content=[ToolResultBlock(tool_use_id="toolu_1", content="RETRIES = 3")]),
        AssistantMessage(
            content=[ToolUseBlock(id="toolu_3", name="Grep", input={"pattern": "retry\\("})],
            model=MODEL,
            parent_tool_use_id="toolu_2",
        ),
        UserMessage(
            content=[ToolResultBlock(tool_use_id="toolu_3", content="No matches", is_error=True)],
            parent_tool_use_id="toolu_2",
        ),
        UserMessage(
            content=[
                ToolResultBlock(
                    tool_use_id="toolu_2", content=[{"type": "text", "text": "No callers."}]
                )
            ]
        ),
        AssistantMessage(content=[TextBlock(text="RETRIES is 3.")], model=MODEL),
        ResultMessage(
            subtype="success",
            duration_ms=1200,
            duration_api_ms=900,
            is_error=False,
            num_turns=3,
            session_id="s",
            total_cost_usd=0.004,
            result="RETRIES is 3.",
        ),
    ]


def test_sdk_messages_become_events(claude: PluginSandbox) -> None:
    with claude.session("coder") as session:
        fed = [session.feed(message) for message in conversation()]
    assert [len(events) for events in fed] == [0, 0, 4, 1, 1, 1, 1, 1, 1]
    events = [event for batch in fed for event in batch]
    assert [(e.type, e.agent) for e in events] == [
        ("thinking", "coder"),
        ("text", "coder"),
        ("tool_call", "coder"),
        ("tool_call", "coder"),
        ("tool_result", "coder"),
        ("tool_call", "coder/Find callers"),
        ("tool_result", "coder/Find callers"),
        ("tool_result", "coder"),
        ("text", "coder"),
        ("completion", "coder"),
    ]
    results = {e.data["tool_use_id"]: e.data for e in events if e.type == "tool_result"}
    assert results["toolu_1"] == {
        "tool_use_id": "toolu_1",
        "tool_name": "Read",
        "output": "RETRIES = 3",
        "is_error": False,
    }
    assert results["toolu_3"]["is_error"] is True
    assert results["toolu_2"]["output"] == "No callers."
    assert events[-1].data["result"] == "RETRIES is 3."
    assert events[-1].data["num_turns"] == 3
    assert session.stats.unadapted == 0
    assert session.stats.tool_calls == 3


def test_stream_json_dicts_are_adapted_too(claude: PluginSandbox) -> None:
    lines = (FIXTURES / "stream.jsonl").read_text().splitlines()
    with claude.session("coder") as session:
        events = [e for line in lines for e in session.feed(json.loads(line))]
    assert [e.type for e in events].count("tool_call") == 4
    assert events[-1].type == "completion"


def test_a_message_adapts_without_a_session(claude: PluginSandbox) -> None:
    message = AssistantMessage(content=[ToolUseBlock(id="t1", name="Ls", input={})], model=MODEL)
    events = claude.hooks.adapt(message)
    assert events is not None
    assert [(e.type, e.agent, e.data["tool_name"]) for e in events] == [("tool_call", "", "Ls")]


def test_other_objects_are_left_alone(claude: PluginSandbox) -> None:
    assert claude.hooks.adapt({"type": "message", "role": "assistant", "content": []}) is None
    assert claude.hooks.adapt(TextBlock(text="a block alone is not a message")) is None
    assert claude.hooks.adapt("text") is None


def test_a_malformed_message_never_reaches_the_agent(
    claude: PluginSandbox, caplog: pytest.LogCaptureFixture
) -> None:
    broken = AssistantMessage(
        content=[ToolUseBlock(id="t", name="Read", input=["not", "a", "dict"])],  # type: ignore[arg-type,unused-ignore]
        model=MODEL,
    )
    with caplog.at_level(logging.ERROR), claude.session("coder") as session:
        assert session.feed(broken) == []
        session.feed(AssistantMessage(content=[TextBlock(text="Still here.")], model=MODEL))
    assert session.stats.unadapted == 1
    assert session.stats.events == 2  # the text, and the completion
    assert "message.content.0.input: Input should be a valid dictionary" in caplog.text


async def test_decorated_async_generator_is_narrated(
    claude: PluginSandbox, mock_narrator: MockNarrator
) -> None:
    delivered: list[Event] = []

    @monologue("agent")
    async def run() -> AsyncIterator[Any]:
        from monologue import current

        session = current()
        assert session is not None
        session.subscribe(delivered.append)
        for message in conversation():
            yield message

    received = [message async for message in run()]
    assert received == conversation()  # passed on unchanged
    # A batch holds at most max_buffer_size events: older ones come folded into a digest.
    batches = [e for call in mock_narrator.calls for e in call.events]
    covered = {i for e in batches for i in (e.data["ids"] if e.type == FOLDED_TYPE else [e.id])}
    narrated_types = {
        t for e in batches for t in (e.data["types"] if e.type == FOLDED_TYPE else [e.type])
    }
    assert {"tool_call", "tool_result", "thinking", "text"} <= narrated_types
    assert len(covered) >= 10
    assert delivered and delivered[-1].data["reason"] == "final"
