"""The agent base's bad inputs, and the terminal display."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from harness_fixtures import THREE_TASKS
from monologue_harness import AgentMode, AgentOutputError, HarnessError, ReviewAgent, parse_tasks
from monologue_harness.agents import ParserAgent, ParserContext
from monologue_harness.display import HarnessDisplay
from pydantic import ValidationError
from pytest_monologue import PluginSandbox
from rich.console import Console

from monologue import Event

TASK = parse_tasks(THREE_TASKS).task("T001")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"kind": "record"}, "record mode needs store"),
        ({"kind": "replay"}, "replay mode needs either store"),
        ({"kind": "replay", "store": ".", "file": "x.json"}, "replay mode needs either store"),
    ],
)
def test_mode_without_its_source_is_refused(fields: dict[str, str], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        AgentMode.model_validate(fields)


def test_context_missing_a_declared_field_is_named() -> None:
    with pytest.raises(AgentOutputError, match=r"reviewer: context coding: Field required"):
        ReviewAgent().accept({"task": TASK, "feedback": "unused"})


def write(tmp: Path, messages: list[dict[str, object]]) -> Path:
    path = tmp / "run.json"
    path.write_text(json.dumps({"scenarioId": "s", "messages": messages}))
    return path


RESULT = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "duration_ms": 1,
    "duration_api_ms": 1,
    "num_turns": 1,
    "session_id": "s",
}
CONTEXT = ParserContext(tasks_markdown=THREE_TASKS, source_path="tasks.md")


@pytest.mark.parametrize(
    ("messages", "message"),
    [
        ([], "parser: the run ended without a result message"),
        (
            [{**RESULT, "is_error": True, "subtype": "error_max_turns"}],
            r"parser: the run failed \(error_max_turns\)",
        ),
        ([RESULT], "parser: the run ended without a structured output"),
        (
            [{**RESULT, "structured_output": {"phases": []}}],
            "parser: structured output tasks: Field required",
        ),
    ],
)
async def test_bad_agent_output_is_named(
    plugins: PluginSandbox, tmp_path: Path, messages: list[dict[str, object]], message: str
) -> None:
    agent = ParserAgent(mode=AgentMode(kind="replay", file=write(tmp_path, messages)))
    with pytest.raises(AgentOutputError, match=message):
        await agent.execute(CONTEXT)


def test_unreadable_recording_is_named(plugins: PluginSandbox, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"scenarioId": "s"}')
    agent = ParserAgent(mode=AgentMode(kind="replay", file=bad))
    with pytest.raises(HarnessError, match=f"recording {bad}: messages: Field required"):
        agent.run(CONTEXT)


def status(step: str, **data: object) -> Event:
    return Event.from_dict(
        {"type": "status", "session_id": "h", "agent": "harness", "data": {"step": step, **data}}
    )


def test_terminal_display_shows_tasks_narratives_and_progress() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100, color_system=None)
    with HarnessDisplay(console) as display:
        display(
            status(
                "phase_finished",
                phase="parse",
                tasks=[
                    {"id": "T001", "description": "Create greet.py"},
                    {"id": "T002", "description": "Add tests"},
                ],
            )
        )
        display(status("task_started", task_id="T001"))
        display(
            Event.from_dict(
                {
                    "type": "narrative",
                    "session_id": "c",
                    "agent": "coder",
                    "visibility": "user",
                    "data": {
                        "text": "I'm writing greet.py.",
                        "narrator": "template",
                        "reason": "buffer",
                    },
                }
            )
        )
        display(status("task_finished", task_id="T001", status="validated"))
    shown = out.getvalue()
    assert "validated" in shown and "Create greet.py" in shown and "Add tests" in shown
    assert "coder: I'm writing greet.py." in shown
    assert "1/2" in shown
