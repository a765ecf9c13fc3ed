"""An ``@monologue`` async generator yielding Agent SDK messages is narrated the same way on
every run: a batch the pipeline asked to narrate before the run ended is told on its own,
not folded into the final narrative (where the ending would crowd out its subject)."""

from __future__ import annotations

import asyncio

import pytest
from pytest_monologue import PluginSandbox

from monologue import monologue
from monologue.events import Event

pytest.importorskip("claude_agent_sdk")

RUNS = 100


def narrate_once() -> list[str]:
    from claude_agent_sdk.types import (
        AssistantMessage,
        TextBlock,
        ToolResultBlock,
        ToolUseBlock,
        UserMessage,
    )

    said: list[str] = []

    def heard(narrative: Event) -> None:
        said.append(narrative.data["text"])

    @monologue("claude", narrator="template", on_narrative=heard)
    async def agent():  # type: ignore[no-untyped-def]
        read = ToolUseBlock(id="toolu_1", name="Read", input={"file_path": "src/app.py"})
        yield AssistantMessage(content=[read], model="claude-sonnet-4-5")
        yield UserMessage(content=[ToolResultBlock(tool_use_id="toolu_1", content="def main()")])
        yield AssistantMessage(content=[TextBlock(text="Found main.")], model="claude-sonnet-4-5")

    async def run() -> None:
        async for _ in agent():
            pass

    asyncio.run(run())
    return said


def test_the_read_is_named_on_every_run(monologue_plugins: PluginSandbox) -> None:
    monologue_plugins.load("claude", "template", "buffer")
    missed = [
        said for said in (narrate_once() for _ in range(RUNS)) if "src/app.py" not in " ".join(said)
    ]
    assert not missed, f"{len(missed)} of {RUNS} runs never named src/app.py: {missed[0]}"
