"""The plugin's should_speak in both modes, with the mock narrator and throwaway policies."""

from __future__ import annotations

import logging

import pytest
from gate_fixtures import CollectEvents
from monologue_gate import SPEAK_HINTS, GateState
from pytest_monologue import WAIT, MockNarrator, PluginSandbox

from monologue import Session, hookimpl
from monologue.events import FOLDED_TYPE, Event


class AskedAfterGate:
    """A policy answering after the gate (like the buffer plugin), counting its questions."""

    def __init__(self, answer: bool | None) -> None:
        self.answer = answer
        self.asked: list[str] = []

    @hookimpl(trylast=True)
    def should_speak(self, event: Event) -> bool | None:
        self.asked.append(event.type)
        return self.answer


def pairs(s: Session, n: int) -> None:
    for i in range(n):
        call = s.tool_call("Read", {"path": f"src/f{i}.py"})
        s.tool_result(call.data["tool_use_id"], f"content {i}")


def suppressions(collect: CollectEvents) -> list[str]:
    return [event.data["reason"] for event in collect.of_type("narration_suppressed")]


@pytest.mark.parametrize("mode", ["assist", "strict"])
@pytest.mark.parametrize("hint", sorted(SPEAK_HINTS))
def test_each_speaking_hint_forces_speech(
    gate: PluginSandbox, mock_narrator: MockNarrator, mode: str, hint: str
) -> None:
    with gate.session("coder", gate=mode, max_buffer_size=50) as s:
        s.text("working on it")
        s.hint(hint)
        assert mock_narrator.wait_for_calls(1)
        assert s.wait_idle(5)
    assert mock_narrator.calls[0].reason == f"gate: hint {hint}"
    assert mock_narrator.calls[0].types == ["text"]


@pytest.mark.parametrize("mode", ["assist", "strict"])
@pytest.mark.parametrize(
    ("kind", "data"), [("error", {"message": "disk full"}), ("agent_result", {"outcome": "done"})]
)
def test_errors_and_results_force_speech(
    gate: PluginSandbox, mock_narrator: MockNarrator, mode: str, kind: str, data: dict[str, str]
) -> None:
    with gate.session("coder", gate=mode, max_buffer_size=50) as s:
        s.text("working on it")
        s.emit(kind, data)
        assert mock_narrator.wait_for_calls(1)
        assert s.wait_idle(5)
    assert mock_narrator.calls[0].reason == f"gate: {kind.replace('_', ' ')}"
    assert mock_narrator.calls[0].types == ["text", kind]


def test_assist_has_no_opinion_otherwise_so_the_next_policy_decides(
    gate: PluginSandbox, mock_narrator: MockNarrator
) -> None:
    policy = gate.register(AskedAfterGate(True), "policy")
    with gate.session("coder", min_buffer_size=1) as s:
        s.text("one")
        assert mock_narrator.wait_for_calls(1)
        assert s.wait_idle(5)
    assert policy.asked == ["text"]
    assert mock_narrator.reasons[0] == "buffer"


def test_assist_without_a_policy_leaves_the_core_default(
    gate: PluginSandbox, mock_narrator: MockNarrator, collect: CollectEvents
) -> None:
    with gate.session("coder", min_buffer_size=2, max_buffer_size=4) as s:
        pairs(s, 2)
        assert mock_narrator.wait_for_calls(1)
        assert s.wait_idle(5)
    assert mock_narrator.reasons == ["max_buffer"]
    assert suppressions(collect) == []


def test_strict_holds_past_max_buffer_and_the_next_policy_is_not_asked(
    gate: PluginSandbox, mock_narrator: MockNarrator
) -> None:
    policy = gate.register(AskedAfterGate(True), "policy")
    with gate.session("coder", gate="strict", min_buffer_size=2, max_buffer_size=4) as s:
        pairs(s, 6)
        assert s.wait_idle(5)
        assert mock_narrator.calls == []
    assert policy.asked == []
    assert mock_narrator.reasons == ["final"]
    # Twelve events and the completion, capped at max_buffer_size: the ten oldest folded.
    digest, *newest = mock_narrator.calls[0].events
    assert digest.type == FOLDED_TYPE and digest.data["count"] == 10
    assert len(newest) == 3 and newest[-1].type == "completion"


def test_strict_records_one_suppression_per_held_batch_with_a_specific_reason(
    gate: PluginSandbox, mock_narrator: MockNarrator, collect: CollectEvents
) -> None:
    with gate.session("coder", gate="strict", min_buffer_size=2, max_buffer_size=4) as s:
        pairs(s, 5)  # ten held events: reported at 2, then every 4 more (6, 10)
        assert s.wait_idle(5)
    assert suppressions(collect) == [
        "strict: no hint, no failure, error, result, sub-agent return or user message"
        " in the last 2 events "
        "(2 events held since the session started)",
        "strict: no hint, no failure, error, result, sub-agent return or user message"
        " in the last 5 events "
        "(6 events held since the session started)",
        "strict: no hint, no failure, error, result, sub-agent return or user message"
        " in the last 5 events "
        "(10 events held since the session started)",
    ]
    suppressed = collect.of_type("narration_suppressed")
    assert [event.data["held"] for event in suppressed] == [2, 6, 10]
    assert all(event.data["gate"] == "strict" for event in suppressed)
    assert all(event.visibility == "internal" for event in suppressed)


def test_strict_names_hints_that_do_not_call_for_speech(
    gate: PluginSandbox, mock_narrator: MockNarrator, collect: CollectEvents
) -> None:
    with gate.session("coder", gate="strict", min_buffer_size=2, max_buffer_size=4) as s:
        s.hint("progress")
        s.text("still going")
        s.text("and going")
        assert s.wait_idle(5)
    assert suppressions(collect) == [
        "strict: hints progress do not call for speech, "
        "no failure, error, result, sub-agent return or user message"
        " in the last 2 "
        "events (2 events held since the session started)"
    ]


def test_a_narrative_starts_a_new_held_batch(
    gate: PluginSandbox, mock_narrator: MockNarrator, collect: CollectEvents
) -> None:
    with gate.session("coder", gate="strict", min_buffer_size=2, max_buffer_size=10) as s:
        s.text("a")
        s.error("boom")  # speaks; the batch starts again
        assert mock_narrator.wait_for_calls(1)
        assert s.wait_idle(5)
        s.text("b")
        s.text("c")
        assert s.wait_idle(5)
    assert suppressions(collect) == [
        "strict: no hint, no failure, error, result, sub-agent return or user message"
        " in the last 2 events "
        "(2 events held since the last narration)"
    ]


def test_a_trigger_is_consumed_when_the_gate_speaks(
    gate: PluginSandbox, mock_narrator: MockNarrator
) -> None:
    mock_narrator.queue("I hit an error.", WAIT)
    with gate.session("coder", gate="assist", max_buffer_size=50) as s:
        s.error("boom")
        assert mock_narrator.wait_for_calls(1)
        assert s.wait_idle(5)
        s.text("after")
        s.text("more")
        assert s.wait_idle(5)
        assert len(mock_narrator.calls) == 1
        s.hint("user_waiting")  # the narrator waits, so the hint stays in session.hints
        assert mock_narrator.wait_for_calls(2)
        assert s.wait_idle(5)
        assert s.hints == ["user_waiting"]
        s.text("later")
        s.text("and later")
        assert s.wait_idle(5)
        assert len(mock_narrator.calls) == 2
    assert mock_narrator.reasons == ["gate: error", "gate: hint user_waiting", "final"]


def test_user_waiting_with_nothing_buffered_asks_for_an_idle_turn(
    gate: PluginSandbox, mock_narrator: MockNarrator
) -> None:
    with gate.session("coder", gate="strict") as s:
        call = s.tool_call("Bash", {"command": "pytest -q"})
        s.hint("user_waiting")  # the call is buffered: a normal gate turn
        assert mock_narrator.wait_for_calls(1)
        assert s.wait_idle(5)
        s.hint("user_waiting")  # nothing buffered now
        assert mock_narrator.wait_for_calls(2)
        assert s.wait_idle(5)
        s.tool_result(call.data["tool_use_id"], "5 passed")
    assert mock_narrator.reasons == ["gate: hint user_waiting", "idle", "final"]
    assert mock_narrator.calls[1].events == []


def test_hints_alone_never_count_as_held_events(
    gate: PluginSandbox, mock_narrator: MockNarrator, collect: CollectEvents
) -> None:
    with gate.session("coder", gate="strict", min_buffer_size=2) as s:
        for _ in range(5):
            s.hint("progress")
        assert s.wait_idle(5)
    assert suppressions(collect) == []
    assert mock_narrator.calls == []


def test_mode_comes_from_the_environment(
    gate: PluginSandbox, mock_narrator: MockNarrator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONOLOGUE_GATE", " Strict ")
    with gate.session("coder") as s:
        state = s.state["gate"]
        assert isinstance(state, GateState)
        assert state.settings.mode == "strict"


def test_a_bad_mode_is_warned_about_naming_key_value_and_source_and_the_default_runs(
    gate: PluginSandbox,
    mock_narrator: MockNarrator,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with (
        caplog.at_level(logging.WARNING, logger="monologue"),
        gate.session("coder", gate="loud", max_buffer_size=2, min_buffer_size=1) as s,
    ):
        state = s.state["gate"]
        assert isinstance(state, GateState)
        assert state.settings.mode == "assist"  # the default, as the warning says
        s.error("boom")  # assist mode still speaks at once on an error
        assert mock_narrator.wait_for_calls(1)
    assert "gate = 'loud' (from session() arguments): Input should be 'assist'" in caplog.text
    assert "the session uses the default ('assist')" in caplog.text
    assert sum(count for (plugin, _), count in gate.hooks.errors.items() if plugin == "gate") == 0
    assert mock_narrator.reasons[0] == "gate: error"


def test_a_session_without_a_narrator_is_left_alone(
    gate: PluginSandbox, collect: CollectEvents
) -> None:
    with gate.session("coder", narrator="none", gate="strict") as s:
        pairs(s, 5)
        state = s.state["gate"]
        assert isinstance(state, GateState)
        assert state.watch is None
    assert suppressions(collect) == []
