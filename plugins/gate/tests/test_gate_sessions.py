"""Strict and assist modes through a whole session narrated by the template narrator."""

from __future__ import annotations

from typing import Any

import pytest
from gate_fixtures import CollectEvents, installed
from monologue_gate import Watchdog
from pytest_monologue import PluginSandbox

from monologue import Session

NARRATIVE_AND_SUPPRESSED = ("narrative", "narration_suppressed")

pytestmark = pytest.mark.skipif(
    not installed("template"), reason="needs the monologue-template narrator installed"
)


def fix_retry_limit(s: Session) -> None:
    """An agent finds and fixes a retry limit; paced like a live agent (narration keeps up)."""

    def step(event: Any) -> None:
        s.wait_idle(5)

    def tool(name: str, tool_input: dict[str, Any], output: str, is_error: bool = False) -> None:
        call = s.tool_call(name, tool_input)
        step(call)
        step(s.tool_result(call.data["tool_use_id"], output, is_error=is_error))

    step(s.text("I'll find where the retry limit is set."))
    tool("Read", {"file_path": "README.md"}, "# client\nRetries are configurable.")
    tool("Grep", {"pattern": "max_retries"}, "src/client.py:12: max_retries = 3")
    tool("Read", {"file_path": "src/client.py"}, "class Client:\n    max_retries = 3")
    tool("Read", {"file_path": "tests/test_client.py"}, "def test_retries(): ...")
    tool("Edit", {"file_path": "src/client.py"}, "ok")
    tool("Bash", {"command": "pytest -q"}, "1 failed, 11 passed", is_error=True)
    step(s.error("pytest failed: test_retries expects 5 retries"))
    tool("Read", {"file_path": "tests/test_client.py"}, "assert client.max_retries == 5")
    tool("Edit", {"file_path": "src/client.py"}, "ok")
    tool("Bash", {"command": "pytest -q"}, "12 passed")
    tool("Bash", {"command": "git diff --stat"}, "src/client.py | 2 +-")
    step(s.text("The retry limit is now 5 and the tests pass."))
    step(s.hint("task_completed"))
    step(s.emit("agent_result", {"outcome": "retry limit raised to 5"}))


def run(sandbox: PluginSandbox, mode: str) -> CollectEvents:
    """The session in ``mode``; returns its events."""
    collect = CollectEvents()
    sandbox.register(collect, f"collect-{mode}")
    with sandbox.session("coder", narrator="template", gate=mode) as s:
        fix_retry_limit(s)
    sandbox.pm.unregister(collect)
    return collect


@pytest.fixture
def sandbox(monologue_plugins: PluginSandbox, watchdog: Watchdog) -> PluginSandbox:
    monologue_plugins.load("gate", "template")
    if installed("buffer"):
        monologue_plugins.load("buffer")
    return monologue_plugins


def test_strict_speaks_less_than_assist_and_says_why(sandbox: PluginSandbox) -> None:
    assist_events, strict_events = run(sandbox, "assist"), run(sandbox, "strict")
    assist, assist_held = (assist_events.of_type(kind) for kind in NARRATIVE_AND_SUPPRESSED)
    strict, strict_held = (strict_events.of_type(kind) for kind in NARRATIVE_AND_SUPPRESSED)

    assert 0 < len(strict) < len(assist)
    assert assist_held == []
    # Strict speaks for the failing test run, the error reported after it, the completion
    # hint and the result; nothing is left for a final turn.
    assert [event.data["reason"] for event in strict] == [
        "gate: tool failed: Bash",
        "gate: error",
        "gate: hint task_completed",
        "gate: agent result",
    ]
    assert any("test" in event.text.lower() for event in strict)
    assert strict_held
    for event in strict_held:
        assert event.data["reason"].startswith("strict: ")
        assert " held since " in event.data["reason"]
    # Assist forced speech on the error too, and let the buffer policy talk otherwise.
    assist_reasons = [event.data["reason"] for event in assist]
    assert "gate: tool failed: Bash" in assist_reasons
    assert {reason for reason in assist_reasons if not reason.startswith("gate: ")} - {"final"}


def test_every_narratable_event_is_narrated_exactly_once_in_both_modes(
    sandbox: PluginSandbox,
) -> None:
    silent = {"hint", "completion", "narrative", "narration_suppressed"}
    for mode in ("assist", "strict"):
        collect = run(sandbox, mode)
        narratives = collect.of_type("narrative")
        covered = [event_id for event in narratives for event_id in event.data["covers"]]
        expected = [event.id for event in collect.events if event.type not in silent]
        assert sorted(covered) == sorted(expected), mode
