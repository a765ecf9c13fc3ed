"""Shared fixtures: plugins loaded through their entry points, and a scripted ``claude`` CLI.

``pytest_monologue.claude.FakeClaude`` is a real subprocess the SDK's real ``query()``
drives; the scenarios below are the messages the CLI would send for a 3-task run in which
the reviewer rejects T002's first attempt and approves the coder's retry.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import pytest
from pytest_monologue import PluginSandbox
from pytest_monologue.claude import FakeClaude

FIXTURES = Path(__file__).parent / "fixtures"
SHARED_GOLDEN = Path(__file__).resolve().parents[4] / "shared" / "traces" / "agent-sdk-golden"
SESSION = "0b9a3c7e-4d2f-4e8a-9b1c-5f6e7d8c9a0b"
MODEL = "claude-sonnet-4-5"

THREE_TASKS = """\
# Greeting module

## Phase 1: Build

**Purpose**: Add a greeting module

- [ ] T001 Create greet.py with a greet(name) function
- [ ] T002 Add tests/test_greet.py covering greet (depends on T001)
- [ ] T003 [P] Document greet in README.md
"""


@pytest.fixture
def plugins(monologue_plugins: PluginSandbox) -> PluginSandbox:
    """claude (adapts SDK messages), harness, and the template narrator under the buffer."""
    monologue_plugins.load("claude", "harness", "template", "buffer")
    return monologue_plugins


def message(kind: str, content: list[dict[str, Any]]) -> dict[str, Any]:
    body: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        body.update(model=MODEL, id=f"msg_{zlib.crc32(json.dumps(content).encode()):08x}")
    return {
        "send": {"type": kind, "message": body, "parent_tool_use_id": None, "session_id": SESSION}
    }


def text(words: str) -> dict[str, Any]:
    return message("assistant", [{"type": "text", "text": words}])


def tool(tool_id: str, name: str, tool_input: dict[str, Any], answer: str) -> list[dict[str, Any]]:
    use = {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
    result = {"type": "tool_result", "tool_use_id": tool_id, "content": answer, "is_error": False}
    return [message("assistant", [use]), message("user", [result])]


def finish(tool_id: str, output: dict[str, Any], cost: float, tokens: int) -> list[dict[str, Any]]:
    """The StructuredOutput call and the result message carrying it, as the CLI ends a run."""
    result = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "duration_ms": 1200,
        "duration_api_ms": 1100,
        "num_turns": 3,
        "result": "",
        "session_id": SESSION,
        "total_cost_usd": cost,
        "usage": {"input_tokens": tokens, "output_tokens": tokens // 10},
        "structured_output": output,
    }
    return [
        *tool(tool_id, "StructuredOutput", output, "Structured output provided successfully"),
        {"send": result},
    ]


def init() -> dict[str, Any]:
    return {
        "send": {
            "type": "system",
            "subtype": "init",
            "session_id": SESSION,
            "cwd": "/work",
            "model": MODEL,
            "claude_code_version": "2.1.0",
            "tools": ["Read", "Write", "Bash", "StructuredOutput"],
        }
    }


def scenario(match: list[str], *steps: Any) -> dict[str, Any]:
    flat: list[dict[str, Any]] = [init()]
    for step in steps:
        flat.extend(step if isinstance(step, list) else [step])
    return {"match": match, "steps": flat}


def coder(task: str, words: str, path: str, summary: str, *extra: str) -> dict[str, Any]:
    return scenario(
        ["You are the coding agent", f"Task {task}:", *extra],
        text(words),
        tool(f"toolu_w{task}{len(extra)}", "Write", {"file_path": path, "content": "..."}, "ok"),
        finish(
            f"toolu_s{task}{len(extra)}", {"summary": summary, "stopReason": "finished"}, 0.02, 900
        ),
    )


def reviewer(
    task: str, decision: str, feedback: str, *extra: str, confidence: float = 0.9
) -> dict[str, Any]:
    return scenario(
        ["You are the review agent", f"Task {task}:", *extra],
        text(f"I'll check the work on {task}."),
        tool(f"toolu_r{task}{len(extra)}", "Read", {"file_path": "greet.py"}, "def greet(n): ..."),
        finish(
            f"toolu_v{task}{len(extra)}",
            {"decision": decision, "confidence": confidence, "feedback": feedback},
            0.01,
            600,
        ),
    )


def three_task_scenarios(parsed: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        scenario(
            ["You are the parser"],
            text("I'll parse the tasks file into phases and tasks."),
            finish("toolu_parse", parsed, 0.03, 1500),
        ),
        coder("T001", "I'll write greet.py.", "greet.py", "Wrote greet.py with greet(name)."),
        reviewer("T001", "approve", "greet works."),
        # The retry first: its prompt also matches the first attempt's strings.
        coder(
            "T002",
            "I'll add the missing edge case.",
            "tests/test_greet.py",
            "Second try: tests cover empty names too.",
            "This is attempt 2",
        ),
        coder(
            "T002", "I'll write the tests.", "tests/test_greet.py", "First try: tests for greet."
        ),
        reviewer("T002", "reject", "Cover the empty name case.", "First try"),
        reviewer("T002", "approve", "Edge case covered.", "Second try"),
        coder("T003", "I'll document greet.", "README.md", "Documented greet in README.md."),
        reviewer("T003", "approve", "Docs are clear."),
    ]


@pytest.fixture
def three_tasks(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.md"
    path.write_text(THREE_TASKS, encoding="utf-8")
    return path


@pytest.fixture
def fake_claude(tmp_path: Path) -> FakeClaude:
    from monologue_harness import parse_tasks

    parsed = parse_tasks(THREE_TASKS, source="tasks.md").model_dump(mode="json", by_alias=True)
    return FakeClaude.create(tmp_path / "fake", three_task_scenarios(parsed))
