"""The live decision path in sessions: failures once per burst, user messages, sub-agents,
the narrator's context slice, and ``gate = "llm"`` with throwaway controllers."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from gate_fixtures import CollectEvents
from monologue_gate import ControllerRunner, ControlRequest, narrator_context
from pytest_monologue import MockNarrator, PluginSandbox

from monologue import Session, hookimpl
from monologue.events import Event

QUIET = {"max_buffer_size": 200, "idle_interval_s": 0}


def tool(s: Session, name: str, output: str = "ok", is_error: bool = False) -> None:
    call = s.tool_call(name, {"command": f"{name.lower()} {output}"})
    s.tool_result(call.data["tool_use_id"], output, is_error=is_error)
    assert s.wait_idle(5)


def refreshes(collect: CollectEvents) -> list[str]:
    return [event.data["summary_ref"] for event in collect.of_type("summary_refresh")]


def suppressions(collect: CollectEvents) -> list[str]:
    return [event.data["reason"] for event in collect.of_type("narration_suppressed")]


def test_failing_results_speak_once_per_burst(
    gate: PluginSandbox, mock_narrator: MockNarrator
) -> None:
    with gate.session("coder", gate="strict", **QUIET) as s:
        tool(s, "Bash", "1 failed", is_error=True)
        tool(s, "Read", "Sibling tool call errored", is_error=True)  # same burst
        tool(s, "Grep", "src/a.py:1")
        tool(s, "Read", "File does not exist.", is_error=True)  # a new burst
    assert mock_narrator.reasons == ["gate: tool failed: Bash", "gate: tool failed: Read"]
    assert mock_narrator.calls[1].types == ["tool_call", "tool_result"] * 3


def test_user_messages_interruptions_and_sub_agent_returns_speak(
    gate: PluginSandbox, mock_narrator: MockNarrator
) -> None:
    with gate.session("coder", gate="strict", **QUIET) as s:
        s.emit("user_message", {"text": "Fix the retry test."})
        assert s.wait_idle(5)
        tool(s, "Task", "The limit is set in src/client.py.")
        s.emit("user_message", {"text": "[Request interrupted by user for tool use]"})
        assert s.wait_idle(5)
        tool(s, "Agent", "Done.")
    assert mock_narrator.reasons == [
        "gate: user message",
        "gate: sub-agent returned",
        "gate: user interrupted",
        "gate: sub-agent returned",
    ]


def test_on_a_long_session_the_narrators_context_is_a_slice_refreshed_only_on_change(
    gate: PluginSandbox, mock_narrator: MockNarrator, collect: CollectEvents, tmp_path: Path
) -> None:
    with gate.session("coder", gate="strict", data_dir=str(tmp_path), **QUIET) as s:
        tool(s, "Bash", "boom", is_error=True)
        assert s.wait_idle(5)
        assert narrator_context(s) is not None
        assert "Latest summary: none (all 2 events are shown above)." in str(narrator_context(s))
        # Narrators get it through the hook, without importing the gate.
        assert s.hooks.first("narrator_context", session=s)[0] == narrator_context(s)
        for i in range(20):
            tool(s, "Read", f"line {i}")
        s.hint("task_completed")
        assert s.wait_idle(5)
        first = str(narrator_context(s))
        s.hint("task_completed")  # nothing new: the same summary again
        assert s.wait_idle(5)
        assert str(narrator_context(s)) == first
        tool(s, "Edit", "denied", is_error=True)
        assert s.wait_idle(5)
        last = str(narrator_context(s))
    assert "(30 newest of 42, untrusted data)" in first
    assert "Latest summary: sum-" in first and "(events 1 to 12)" in first
    assert "Errors: 1 (last: boom)." in first
    assert "(30 newest of 44, untrusted data)" in last and "(events 1 to 14)" in last
    # The gate spoke three times on the long session (the second hint had nothing new to
    # narrate, so no narrator turn), and the repeated summary emitted nothing.
    assert mock_narrator.reasons[1:] == ["gate: hint task_completed", "gate: tool failed: Edit"]
    refs = refreshes(collect)
    assert len(refs) == 2 and refs[0] != refs[1]
    assert sorted(p.stem for p in (tmp_path / "summaries" / s.id).iterdir()) == sorted(refs)


def test_a_summary_that_cannot_be_stored_does_not_stop_the_gate(
    gate: PluginSandbox,
    mock_narrator: MockNarrator,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("not a folder")
    with (
        caplog.at_level(logging.WARNING, "monologue.gate"),
        gate.session("coder", gate="strict", data_dir=str(blocker), **QUIET) as s,
    ):
        for i in range(16):
            tool(s, "Read", f"line {i}")
        tool(s, "Bash", "boom", is_error=True)
        tool(s, "Grep", "ok")
        tool(s, "Bash", "boom again", is_error=True)
    assert mock_narrator.reasons[:2] == ["gate: tool failed: Bash"] * 2
    assert narrator_context(s) is None
    warnings = [r.getMessage() for r in caplog.records if r.name == "monologue.gate"]
    assert len(warnings) == 1
    assert warnings[0].startswith(f"gate: no context slice for session {s.id}: ")


class Controller:
    """A throwaway ``control`` plugin with a scripted answer; keeps what it was asked."""

    def __init__(self, answer: Any, problem: str | None = None) -> None:
        self.answer = answer
        self.problem = problem
        self.asked: list[ControlRequest] = []

    @hookimpl
    def control(self, context: ControlRequest) -> Any:
        self.asked.append(context)
        if self.problem is not None:
            context.problem(self.problem)
        return self.answer


def held_reads(gate: PluginSandbox, n: int = 2) -> Session:
    with gate.session("coder", gate="llm", min_buffer_size=2, **QUIET) as s:
        for i in range(n):
            s.text(f"step {i}")
        assert s.wait_idle(5)
    return s


def test_llm_mode_asks_the_controller_at_each_checkpoint_and_follows_it(
    gate: PluginSandbox, mock_narrator: MockNarrator
) -> None:
    answer = {"speak_now": True, "actions": [{"type": "narrate", "reason": "a milestone"}]}
    controller = gate.register(Controller(answer), "controller")
    held_reads(gate)
    assert mock_narrator.reasons[0] == "gate: controller: a milestone"
    [request] = controller.asked
    assert request.timeout_s == 5.0
    assert request.answer_schema["required"] == ["speak_now"]
    assert "## Event Focus" in request.prompt and "step 1" in request.prompt


@pytest.mark.parametrize(
    ("controller", "why"),
    [
        (None, "llm: no controller answered (gate = 'llm' needs a plugin implementing"),
        (Controller(None, "model unreachable"), "llm: model unreachable ("),
        (
            Controller({"speak_now": False, "notes": "routine"}),
            "llm: routine (2 events held since the session started)",
        ),
        (
            Controller({"speak_now": 1}),
            "llm: malformed answer from controller: speak_now: Input should be a valid boolean",
        ),
        (Controller(["speak"]), "llm: malformed answer from controller: answer: Input should be"),
    ],
)
def test_llm_mode_holds_without_a_valid_decision_and_says_why(
    gate: PluginSandbox,
    mock_narrator: MockNarrator,
    collect: CollectEvents,
    controller: Controller | None,
    why: str,
) -> None:
    if controller is not None:
        gate.register(controller, "controller")
    held_reads(gate)
    assert mock_narrator.reasons == ["final"]
    [reason] = suppressions(collect)
    assert reason.startswith(why)
    assert collect.of_type("narration_suppressed")[0].data["gate"] == "llm"


def test_llm_mode_asks_again_every_max_buffer_size_held_events(
    gate: PluginSandbox, mock_narrator: MockNarrator, collect: CollectEvents
) -> None:
    controller = gate.register(Controller({"speak_now": False, "notes": "quiet"}), "controller")
    with gate.session("coder", gate="llm", min_buffer_size=2, max_buffer_size=3) as s:
        for i in range(8):
            s.text(f"step {i}")
    assert len(controller.asked) == 3  # at 2, 5 and 8 held events
    assert [r.split(" (")[1] for r in suppressions(collect)] == [
        "2 events held since the session started)",
        "5 events held since the session started)",
        "8 events held since the session started)",
    ]


def test_the_live_conversation_stays_bounded_however_long(tmp_path: Path) -> None:
    runner = ControllerRunner(data_dir=tmp_path)
    for i in range(6000):
        data = {"tool_name": "Read", "tool_use_id": f"t{i}", "input": {"file_path": f"f{i}.py"}}
        runner.observe(Event(type="tool_call", data=data))
    assert len(runner.newest) == 30
    markdown = runner.live_slice("long")
    assert "(30 newest of 6000, untrusted data)" in markdown
    assert "5970 earlier events" in markdown and "Tools: Read x5970." in markdown
    # Eight files named, 4096 more counted exactly, the rest only said to be there.
    assert "f7.py (over 4096 more)." in markdown
    assert "f8.py" not in markdown.split("### Summaries")[1]
