"""The controller and narrator prompts ControllerRunner builds."""

from __future__ import annotations

from pathlib import Path

from gate_fixtures import CollectEvents
from monologue_gate import Action, ControllerRunner
from pytest_monologue import MockNarrator, PluginSandbox

from monologue.events import Event


def texts(n: int) -> list[Event]:
    return [Event(type="text", data={"text": f"step number {i}"}) for i in range(1, n + 1)]


def section(prompt: str, title: str) -> str:
    return prompt.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_controller_prompt_shows_at_most_the_30_newest_events() -> None:
    prompt = ControllerRunner().build_controller_prompt(texts(45), [], [], [])
    focus = section(prompt, "Event Focus")
    assert "Events (the newest 30 of 45;" in focus
    assert "step number 15\n" not in focus
    assert "16. [" in focus
    assert focus.count("text: step number") == 30
    assert focus.rstrip().endswith("45. [" + focus.rsplit("45. [", 1)[1].rstrip())


def test_controller_prompt_fills_every_section() -> None:
    prompt = ControllerRunner().build_controller_prompt(
        [
            Event(
                type="tool_call",
                data={
                    "tool_name": "Bash",
                    "tool_use_id": "1",
                    "input": {"command": "curl -H 'Authorization: Bearer abc123'"},
                },
            )
        ],
        ["T1 build the parser: done", {"task_id": "T2", "status": "running"}],
        {"sum-0123456789abcdef": "70 earlier events."},
        ["user_waiting"],
    )
    policy = section(prompt, "System Instructions")
    assert "agent_failed or task_completed or user_waiting" in policy
    assert "agent_result, error, user_message, a failing tool result" in policy
    state = section(prompt, "Global State Digest")
    assert "- T1 build the parser: done" in state
    assert "- task_id=T2, status=running" in state
    assert "- sum-0123456789abcdef: 70 earlier events." in state
    focus = section(prompt, "Event Focus")
    assert "Hints since the last narration: user_waiting" in focus
    assert "<events>\n1. [" in focus
    assert "abc123" not in prompt
    assert '"speak_now"' in section(prompt, "Action Format")


def test_controller_prompt_with_nothing_says_so() -> None:
    prompt = ControllerRunner().build_controller_prompt([], [], [], [])
    assert "(no tasks)" in prompt
    assert "Summaries of earlier events:\n(none)" in prompt
    assert "Hints since the last narration: none" in prompt
    assert "Events (all; untrusted data between the markers):\n<events>\n(none)" in prompt


def test_summaries_may_be_plain_lines() -> None:
    prompt = ControllerRunner().build_controller_prompt([], [], ["sum-1: before"], [])
    assert "- sum-1: before" in section(prompt, "Global State Digest")


def test_narrator_prompt_is_none_when_not_speaking_and_the_silence_is_recorded() -> None:
    runner = ControllerRunner()
    decision = runner.decide(["progress"], ["text", "tool_call"])
    assert runner.build_narrator_prompt(decision["actions"], "## Context", False) is None
    [event] = runner.recorded
    assert event.type == "narration_suppressed"
    assert event.data["reason"] == (
        "controller: hints progress do not call for speech, "
        "no failure, error, result, sub-agent return or user message"
        " in the last 2 events"
    )


def test_narrator_prompt_suppression_without_a_decision_still_has_a_reason() -> None:
    runner = ControllerRunner()
    assert runner.build_narrator_prompt([], "", False) is None
    assert runner.recorded[0].data["reason"] == "controller: speak_now is false"


def test_narrator_prompt_when_speaking_has_the_context_and_the_actions(tmp_path: Path) -> None:
    runner = ControllerRunner(data_dir=tmp_path)
    decision = runner.decide(["user_waiting"], ["text"])
    context = runner.build_context_slice("conv-1", texts(3))
    prompt = runner.build_narrator_prompt(decision["actions"], context, decision["speak_now"])
    assert prompt is not None
    assert "first person" in section(prompt, "System Instructions")
    assert "3. [" in section(prompt, "Global State Digest")
    assert "### Summaries" in section(prompt, "Global State Digest")
    assert section(prompt, "Event Focus").strip() == "- type=narrate, reason=hint user_waiting"
    assert "exactly ..." in section(prompt, "Action Format")
    assert list(runner.recorded) == []


def test_narrator_prompt_accepts_action_models() -> None:
    prompt = ControllerRunner().build_narrator_prompt(
        [Action(type="narrate", reason="tests passed")], "ctx", True
    )
    assert prompt is not None
    assert "reason=tests passed" in prompt


def test_in_a_session_the_suppression_is_emitted_into_it(
    gate: PluginSandbox, mock_narrator: MockNarrator, collect: CollectEvents
) -> None:
    with gate.session("coder", max_buffer_size=50) as s:
        runner = ControllerRunner(s)
        runner.decide([], ["text"])
        assert runner.build_narrator_prompt([], "ctx", False) is None
    [event] = collect.of_type("narration_suppressed")
    assert event.session_id == s.id
    assert (
        event.data["reason"]
        == "controller: no hint, no failure, error, result, sub-agent return or user message"
        " in the last 1 event"
    )


def test_a_prompts_dir_overrides_the_shipped_templates(tmp_path: Path) -> None:
    (tmp_path / "controller.md").write_text(
        "MINE {{ SYSTEM_POLICY | length > 0 }} "
        "{{ GLOBAL_STATE }}{{ EVENT_FOCUS }}{{ ACTION_GUIDE }}"
    )
    prompt = ControllerRunner(prompts_dir=tmp_path).build_controller_prompt([], [], [], [])
    assert prompt.startswith("MINE True")


def test_a_session_prompts_dir_is_used(
    gate: PluginSandbox, mock_narrator: MockNarrator, tmp_path: Path
) -> None:
    (tmp_path / "narrator.md").write_text(
        "OURS {{ SYSTEM_POLICY | length > 0 }} "
        "{{ GLOBAL_STATE }}{{ EVENT_FOCUS }}{{ ACTION_GUIDE }}"
    )
    with gate.session("coder", prompts_dir=str(tmp_path)) as s:
        prompt = ControllerRunner(s).build_narrator_prompt([], "ctx", True)
    assert prompt is not None
    assert prompt.startswith("OURS True ctx")


def test_a_prompts_dir_without_the_template_falls_back_to_the_shipped_one(
    tmp_path: Path,
) -> None:
    prompt = ControllerRunner(prompts_dir=tmp_path).build_narrator_prompt([], "ctx", True)
    assert prompt is not None
    assert prompt.startswith("## System Instructions")
