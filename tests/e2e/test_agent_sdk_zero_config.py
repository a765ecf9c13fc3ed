"""End to end, zero configuration: with monologue-core, -buffer, -template and -claude
installed, ``@monologue("agent")`` on an async generator that yields Claude Agent SDK
messages produces narratives. No settings, no config file, no environment variables, no
API key: the user's program below is all there is.

The program runs in its own process, in an empty directory, with every ``MONOLOGUE_*``
variable and ``ANTHROPIC_API_KEY`` removed, so nothing but the installed plugins decides
what happens. It yields the Claude Agent SDK's own message classes when the SDK is
installed, and faithful replicas of them (same class names and fields) either way: the
plugin recognises messages by shape, so it works without the SDK.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from e2e_support import clean_environ, run_command

NEEDED = {"buffer", "template", "claude"}

pytestmark = pytest.mark.skipif(
    not NEEDED.issubset(ep.name for ep in entry_points(group="monologue")),
    reason=f"needs the {', '.join(sorted(NEEDED))} plugins installed",
)

PROGRAM = r"""
import asyncio
import json
import sys
from dataclasses import dataclass, field
from typing import Any

from monologue import current, monologue

if sys.argv[1] == "sdk":
    from claude_agent_sdk import (
        AssistantMessage, ResultMessage, SystemMessage, TextBlock, ThinkingBlock,
        ToolResultBlock, ToolUseBlock, UserMessage,
    )
else:  # the SDK's classes, as declared in claude_agent_sdk.types
    @dataclass
    class TextBlock:
        text: str

    @dataclass
    class ThinkingBlock:
        thinking: str
        signature: str

    @dataclass
    class ToolUseBlock:
        id: str
        name: str
        input: dict[str, Any]

    @dataclass
    class ToolResultBlock:
        tool_use_id: str
        content: str | list[dict[str, Any]] | None = None
        is_error: bool | None = None

    @dataclass
    class UserMessage:
        content: str | list[Any]
        uuid: str | None = None
        parent_tool_use_id: str | None = None
        tool_use_result: dict[str, Any] | None = None

    @dataclass
    class AssistantMessage:
        content: list[Any]
        model: str
        parent_tool_use_id: str | None = None
        error: str | None = None
        usage: dict[str, Any] | None = None
        message_id: str | None = None

    @dataclass
    class SystemMessage:
        subtype: str
        data: dict[str, Any]

    @dataclass
    class ResultMessage:
        subtype: str
        duration_ms: int
        duration_api_ms: int
        is_error: bool
        num_turns: int
        session_id: str
        total_cost_usd: float | None = None
        result: str | None = None

MODEL = "claude-sonnet-4-5"


def say(*blocks):
    return AssistantMessage(content=list(blocks), model=MODEL)


def answer(tool_id, output, is_error=False):
    result = ToolResultBlock(tool_use_id=tool_id, content=output, is_error=is_error)
    return UserMessage(content=[result])


def call(tool_id, name, **tool_input):
    return ToolUseBlock(id=tool_id, name=name, input=tool_input)


RUN = [
    SystemMessage(subtype="init", data={"type": "system", "subtype": "init", "cwd": "/app"}),
    say(
        ThinkingBlock(thinking="The limit is probably hard-coded in client.py.", signature="s"),
        TextBlock(text="I'll find where the client retries requests."),
        call("toolu_1", "Grep", pattern="attempt", path="src/httpclient"),
    ),
    answer("toolu_1", "src/httpclient/client.py:41:        for attempt in range(3):"),
    say(call("toolu_2", "Read", file_path="src/httpclient/client.py")),
    answer("toolu_2", "41  for attempt in range(3):\n42      try:"),
    say(call("toolu_3", "Edit", file_path="src/httpclient/config.py",
             old_string="backoff: float = 0.5",
             new_string="backoff: float = 0.5\nmax_attempts: int = 3")),
    answer("toolu_3", "The file src/httpclient/config.py has been updated."),
    say(call("toolu_4", "Edit", file_path="src/httpclient/client.py",
             old_string="range(3)", new_string="range(self.config.max_attempts)")),
    answer("toolu_4", "The file src/httpclient/client.py has been updated."),
    say(call("toolu_5", "Bash", command="python -m pytest -q")),
    answer("toolu_5", "1 failed, 11 passed in 0.47s", is_error=True),
    say(call("toolu_6", "Edit", file_path="src/httpclient/config.py",
             old_string="_ENV = {",
             new_string='_ENV = {\n    "max_attempts": ("HTTPCLIENT_MAX_ATTEMPTS", int),')),
    answer("toolu_6", "The file src/httpclient/config.py has been updated."),
    say(call("toolu_7", "Bash", command="python -m pytest -q")),
    answer("toolu_7", "12 passed in 0.44s"),
    say(TextBlock(text="The retry limit is now ClientConfig.max_attempts; all 12 tests pass.")),
    ResultMessage(subtype="success", duration_ms=38000, duration_api_ms=30000, is_error=False,
                  num_turns=8, session_id="s", total_cost_usd=0.05,
                  result="The retry limit is now configurable; all 12 tests pass."),
]

narratives = []
sessions = []


@monologue("agent")
async def agent():
    session = current()
    sessions.append(session)
    session.subscribe(narratives.append)
    for message in RUN:
        yield message
        # A live agent waits seconds for its model between two messages, long enough for
        # the offline narrator to finish: wait for it here too, to narrate as a live run.
        await asyncio.to_thread(session.wait_idle)


async def main():
    passed_on = [message async for message in agent()]
    assert passed_on == RUN, "the generator's messages must come out unchanged"
    report = {
        "narratives": [
            {"text": n.text, "narrator": n.data["narrator"], "covers": n.data["covers"]}
            for n in narratives
        ],
        "stats": sessions[0].stats.as_dict(),
        "closed": sessions[0].closed,
    }
    print(json.dumps(report))


asyncio.run(main())
"""


def sources() -> list[Any]:
    has_sdk = importlib.util.find_spec("claude_agent_sdk") is not None
    skip_sdk = pytest.mark.skipif(not has_sdk, reason="claude-agent-sdk is not installed")
    return ["replica", pytest.param("sdk", marks=skip_sdk)]


@pytest.mark.parametrize("source", sources())
def test_decorated_generator_of_sdk_messages_is_narrated_with_no_configuration(
    tmp_path: Path, source: str
) -> None:
    program = tmp_path / "agent.py"
    program.write_text(PROGRAM)
    # A home of its own, so that whatever the installed plugins write by default (a
    # recording...) stays out of the real one; it holds no monologue configuration.
    env = clean_environ(HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "home" / "data"))
    done = run_command([sys.executable, str(program), source], env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    narratives = report["narratives"]
    assert report["closed"]
    assert report["stats"]["tool_calls"] == 7
    assert report["stats"]["tool_errors"] == 1
    assert report["stats"]["unadapted"] == 0
    # Narrated as it went, by the offline narrator, in sentences.
    assert len(narratives) >= 2, report
    assert {n["narrator"] for n in narratives} == {"template"}
    assert all(len(n["text"].split()) >= 3 for n in narratives), narratives
    covered = [event_id for n in narratives for event_id in n["covers"]]
    assert len(covered) == len(set(covered)), "an event was narrated twice"
    # Seven tool calls and their results, the thinking and the texts: all of it narrated.
    assert len(covered) >= 17, narratives
