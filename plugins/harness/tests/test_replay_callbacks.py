"""Replay gives the SDK the recorded control requests too: hook callbacks run again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from claude_agent_sdk import HookMatcher
from harness_fixtures import THREE_TASKS, finish, init, text, tool
from monologue_harness import AgentMode, CodingAgent, parse_tasks
from monologue_harness.agents import CodingContext
from pytest_monologue import PluginSandbox


def hook_request(tool_input: dict[str, Any]) -> dict[str, Any]:
    """What the CLI sends before a tool runs when a PreToolUse hook is registered."""
    return {
        "type": "control_request",
        "request_id": "req_1",
        "request": {
            "subtype": "hook_callback",
            "callback_id": "hook_0",  # the SDK numbers its callbacks from hook_0
            "input": {
                "hook_event_name": "PreToolUse",
                "tool_name": "Write",
                "tool_input": tool_input,
            },
            "tool_use_id": "toolu_w1",
        },
    }


async def test_recorded_hook_callbacks_run_again_in_replay(
    plugins: PluginSandbox, tmp_path: Path
) -> None:
    write = {"file_path": "greet.py", "content": "..."}
    steps = [
        init(),
        text("Writing."),
        *tool("toolu_w1", "Write", write, "ok"),
        *finish("toolu_s1", {"summary": "Wrote greet.py."}, 0.01, 100),
    ]
    messages = [s["send"] for s in steps]
    messages.insert(2, hook_request(write))
    recording = tmp_path / "coder.json"
    recording.write_text(json.dumps({"scenarioId": "hooked", "messages": messages}))

    seen: list[dict[str, Any]] = []

    async def on_pre_tool_use(data: Any, tool_use_id: str | None, context: Any) -> Any:
        seen.append({"input": data["tool_input"], "tool_use_id": tool_use_id})
        return {}

    agent = CodingAgent(
        mode=AgentMode(kind="replay", file=recording),
        sdk_hooks={"PreToolUse": [HookMatcher(hooks=[on_pre_tool_use])]},
    )
    result = await agent.execute(CodingContext(task=parse_tasks(THREE_TASKS).task("T001")))
    assert seen == [{"input": write, "tool_use_id": "toolu_w1"}]
    assert result.files_changed == ["greet.py"]
