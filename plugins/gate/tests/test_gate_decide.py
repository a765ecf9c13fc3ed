"""ControllerRunner.decide and the idle predicate: each hint, each event type, and neither."""

from __future__ import annotations

from typing import Any

import pytest
from monologue_gate import SPEAK_EVENTS, SPEAK_HINTS, SUBAGENT_TOOLS, ControllerRunner, decide

from monologue.events import Event

QUIET_TYPES = ["tool_call", "tool_result", "text", "thinking", "agent_update"]
TRIGGERS = {"error": "error", "agent_result": "agent result", "user_message": "user message"}


def make(kind: str) -> Event:
    payloads: dict[str, dict[str, Any]] = {
        "tool_call": {"tool_name": "Bash", "tool_use_id": "t1", "input": {"command": "ls"}},
        "tool_result": {"tool_use_id": "t1", "output": "a.py"},
        "text": {"text": "hello"},
        "thinking": {"text": "hmm"},
        "agent_update": {"message": "halfway"},
        "user_message": {"text": "go"},
        "error": {"message": "boom"},
        "agent_result": {"outcome": "done"},
    }
    return Event(type=kind, data=payloads[kind])


def test_speaking_hints_and_events_are_the_documented_ones() -> None:
    assert {"user_waiting", "task_completed", "agent_failed"} == SPEAK_HINTS
    assert {"error", "agent_result", "user_message"} == SPEAK_EVENTS
    assert {"Task", "Agent"} == SUBAGENT_TOOLS


def test_default_is_silence_with_a_reason() -> None:
    decision = ControllerRunner().decide([], [make(kind) for kind in QUIET_TYPES[:3]])
    assert decision == {
        "speak_now": False,
        "actions": [],
        "notes": (
            "no hint, no failure, error, result, sub-agent return or user message "
            "in the last 3 events"
        ),
    }


def test_nothing_at_all_holds() -> None:
    assert ControllerRunner().decide([], [])["speak_now"] is False


@pytest.mark.parametrize("hint", sorted(SPEAK_HINTS))
def test_each_speaking_hint_speaks(hint: str) -> None:
    decision = ControllerRunner().decide(["progress", hint], [make("text")])
    assert decision["speak_now"] is True
    assert decision["actions"] == [{"type": "narrate", "reason": f"hint {hint}"}]
    assert decision["notes"] == f"speak: hint {hint}"


def test_other_hints_hold_and_are_named() -> None:
    decision = ControllerRunner().decide(["progress", "started"], [make("text")])
    assert decision["speak_now"] is False
    assert decision["notes"].startswith("hints progress, started do not call for speech")


@pytest.mark.parametrize("kind", sorted(SPEAK_EVENTS))
def test_each_speaking_event_type_speaks(kind: str) -> None:
    recent = [make("tool_call"), make(kind), make("text")]
    decision = ControllerRunner().decide([], recent)
    assert decision["speak_now"] is True
    assert decision["actions"] == [{"type": "narrate", "reason": TRIGGERS[kind]}]


@pytest.mark.parametrize(
    ("data", "trigger"),
    [
        (
            {"tool_use_id": "t1", "tool_name": "Bash", "output": "no", "is_error": True},
            "tool failed: Bash",
        ),
        ({"tool_use_id": "t1", "output": "no", "is_error": True}, "tool failed"),
        (
            {"tool_use_id": "t1", "tool_name": "Task", "output": "found 3 callers"},
            "sub-agent returned",
        ),
        ({"tool_use_id": "t1", "tool_name": "Agent", "output": "done"}, "sub-agent returned"),
    ],
)
def test_failing_results_and_sub_agent_returns_speak(data: dict[str, Any], trigger: str) -> None:
    decision = ControllerRunner().decide([], [make("text"), Event(type="tool_result", data=data)])
    assert decision["actions"] == [{"type": "narrate", "reason": trigger}]


@pytest.mark.parametrize(
    ("text", "trigger"),
    [
        ("[Request interrupted by user]", "user interrupted"),
        ("[Request interrupted by user for tool use]", "user interrupted"),
        ("please also fix the docs", "user message"),
    ],
)
def test_user_messages_and_interruptions_speak(text: str, trigger: str) -> None:
    event = Event(type="user_message", data={"text": text})
    assert ControllerRunner().decide([], [event])["actions"][0]["reason"] == trigger


@pytest.mark.parametrize("kind", sorted(SPEAK_EVENTS))
def test_the_controller_specs_upper_case_types_speak_too(kind: str) -> None:
    assert ControllerRunner().decide([], [kind.upper()])["speak_now"] is True
    runner = ControllerRunner()
    runner.observe(Event(type=kind.upper(), data={"message": "boom", "text": "go"}))
    assert runner.live_decision([])["actions"] == [{"type": "narrate", "reason": TRIGGERS[kind]}]


def test_an_upper_case_failing_tool_result_speaks_once_per_burst() -> None:
    runner = ControllerRunner()
    failed = {"tool_use_id": "t1", "tool_name": "Bash", "is_error": True}
    spoken = []
    for _ in range(2):
        runner.observe(Event(type="TOOL_RESULT", data=failed))
        spoken.append(runner.live_decision([])["speak_now"])
    assert spoken == [True, False]


def test_a_bare_tool_result_type_cannot_tell_a_failure_and_holds() -> None:
    assert ControllerRunner().decide([], ["tool_result"])["speak_now"] is False


def test_live_failures_speak_once_per_burst() -> None:
    runner = ControllerRunner()
    spoken = []
    for i, failed in enumerate([True, True, True, False, True, False, False, True]):
        runner.observe(Event(type="tool_call", data={"tool_name": "Read", "tool_use_id": f"t{i}"}))
        result = {"tool_use_id": f"t{i}", "tool_name": "Read", "is_error": failed}
        runner.observe(Event(type="tool_result", data=result))
        spoken.append(runner.live_decision([])["speak_now"])
    # Bursts start at results 0, 4 and 7; the failures following a failure add nothing.
    assert spoken == [True, False, False, False, True, False, False, True]


def test_live_triggers_are_used_up_by_speaking_and_by_a_narrative() -> None:
    runner = ControllerRunner()
    runner.observe(Event(type="error", data={"message": "boom"}))
    assert runner.live_decision([])["speak_now"] is True
    assert runner.live_decision([])["speak_now"] is False
    runner.observe(Event(type="agent_result", data={"outcome": "done"}))
    runner.narrated()
    assert runner.live_decision([])["speak_now"] is False
    assert runner.held_window == 0


@pytest.mark.parametrize("kind", QUIET_TYPES)
def test_each_ordinary_event_type_holds(kind: str) -> None:
    assert ControllerRunner().decide([], [make(kind)])["speak_now"] is False


def test_recent_events_may_be_dicts_or_type_names() -> None:
    runner = ControllerRunner()
    assert runner.decide([], [{"type": "error", "data": {}}])["speak_now"] is True
    assert runner.decide([], ["text", "agent_result"])["speak_now"] is True
    assert runner.decide([], ["text", "tool_call"])["speak_now"] is False


def test_only_the_window_of_newest_events_counts() -> None:
    recent = ["error", *["text"] * 5]
    assert ControllerRunner().decide([], recent)["speak_now"] is False
    assert ControllerRunner(window=6).decide([], recent)["speak_now"] is True


def test_window_must_be_positive() -> None:
    with pytest.raises(ValueError, match="window must be at least 1"):
        ControllerRunner(window=0)


def test_runner_and_plugin_share_one_policy() -> None:
    assert ControllerRunner().decide(["agent_failed"], ["text"]) == decide(
        ["agent_failed"], ["text"]
    )


def test_parse_decision_round_trips_the_decide_shape() -> None:
    answer = '{"speak_now": true, "actions": [{"type": "narrate", "reason": "tests pass"}]}'
    assert ControllerRunner.parse_decision(answer) == {
        "speak_now": True,
        "actions": [{"type": "narrate", "reason": "tests pass"}],
        "notes": "",
    }


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ("not json", "controller answer: answer: Invalid JSON"),
        ('{"speak_now": "maybe"}', "controller answer: speak_now: "),
        ('{"speak_now": true, "actions": [{"reason": "x"}]}', "actions.0.type: Field required"),
        ('{"speak_now": true, "mood": "chatty"}', "mood: Extra inputs"),
    ],
)
def test_parse_decision_names_what_is_wrong(answer: str, problem: str) -> None:
    with pytest.raises(ValueError, match="controller answer") as info:
        ControllerRunner.parse_decision(answer)
    assert problem in str(info.value)


@pytest.mark.parametrize(
    ("last", "now", "interval", "due"),
    [
        (100.0, 114.9, 15, False),
        (100.0, 115.0, 15, True),
        (100.0, 160.0, 15, True),
        (100.0, 104.0, 5, False),
        (100.0, 105.0, 5, True),
        (100.0, 90.0, 15, False),  # a clock that went backwards is never due
    ],
)
def test_idle_watchdog_due(last: float, now: float, interval: float, due: bool) -> None:
    assert ControllerRunner.idle_watchdog_due(last, now, interval) is due


def test_idle_watchdog_due_defaults_to_15_seconds() -> None:
    assert ControllerRunner.idle_watchdog_due(0.0, 14.0) is False
    assert ControllerRunner.idle_watchdog_due(0.0, 15.0) is True


@pytest.mark.parametrize("interval", [0, -1])
def test_idle_watchdog_due_rejects_a_non_positive_interval(interval: float) -> None:
    with pytest.raises(ValueError, match="interval_seconds must be > 0"):
        ControllerRunner.idle_watchdog_due(0.0, 1.0, interval)
