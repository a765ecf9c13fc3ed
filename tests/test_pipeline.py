"""The narration pipeline: buffering, reasons, waits, history, completion."""

from __future__ import annotations

from pytest_monologue import WAIT
from throwaway_plugins import SpeakAt

from monologue import Narration, Usage, hookimpl
from monologue.events import FOLDED_TYPE


def test_without_a_policy_narration_waits_for_max_buffer(monologue_plugins, mock_narrator):
    with monologue_plugins.session("coder", max_buffer_size=4, min_buffer_size=2) as s:
        s.text("one")
        s.text("two")
        s.text("three")
        assert s.wait_idle(5)
        assert mock_narrator.calls == []  # nobody said speak, and max not reached
        s.text("four")
        assert mock_narrator.wait_for_calls(1)
    assert mock_narrator.calls[0].reason == "max_buffer"
    assert len(mock_narrator.calls[0].events) == 4


def test_policy_true_at_max_is_reported_as_max_buffer(monologue_plugins, mock_narrator):
    monologue_plugins.register(SpeakAt(3), "policy")
    with monologue_plugins.session("coder", max_buffer_size=3, min_buffer_size=1) as s:
        s.text("a")
        s.text("b")
        s.text("c")
        s.wait_idle(5)
    assert mock_narrator.reasons[0] == "max_buffer"


def test_explicit_false_holds_even_at_max(monologue_plugins, mock_narrator):
    class Hold:
        @hookimpl
        def should_speak(self):
            return False

    monologue_plugins.register(Hold(), "hold")
    with monologue_plugins.session("coder", max_buffer_size=3, min_buffer_size=1) as s:
        for i in range(6):
            s.text(str(i))
        s.wait_idle(5)
        assert mock_narrator.calls == []
    assert mock_narrator.reasons == ["final"]
    # Six texts and the completion, but max_buffer_size is a hard cap on a batch: the four
    # oldest come folded into a digest, which counts as one of the three.
    digest, *newest = mock_narrator.calls[0].events
    assert digest.type == FOLDED_TYPE and digest.data["count"] == 5
    assert [event.type for event in newest] == ["text", "completion"]


def test_string_answer_names_the_reason(monologue_plugins, mock_narrator):
    class Gate:
        @hookimpl(tryfirst=True)
        def should_speak(self, event):
            return "gate" if event.type == "hint" else None

    monologue_plugins.register(Gate(), "gate")
    with monologue_plugins.session("coder") as s:
        s.text("working")
        s.hint("user_waiting")
        assert mock_narrator.wait_for_calls(1)
    assert mock_narrator.calls[0].reason == "gate"
    assert mock_narrator.calls[0].types == ["text"]  # hints are not narrated themselves
    assert s.hints == []  # cleared by the narrative


def test_wait_keeps_the_buffer_and_leaves_history_alone(monologue_plugins, mock_narrator):
    monologue_plugins.register(SpeakAt(2), "policy")
    mock_narrator.queue(WAIT, "I read two files.", None, "")
    with monologue_plugins.session("coder", min_buffer_size=2, max_buffer_size=10) as s:
        s.text("a")
        s.text("b")
        assert mock_narrator.wait_for_calls(1)
        s.wait_idle(5)
        assert s.history == type(s.history)([])  # nothing delivered yet
        assert [e.data["text"] for e in s.pending] == ["a", "b"]
        # After a wait the narrator is asked again only once more has accumulated.
        s.text("c")
        s.wait_idle(5)
        assert len(mock_narrator.calls) == 1
        s.text("d")
        assert mock_narrator.wait_for_calls(2)
        s.wait_idle(5)
    first, second = mock_narrator.calls[:2]
    assert first.first and second.first  # still the first narration: none was delivered
    assert [e.data.get("text") for e in second.events] == ["a", "b", "c", "d"]
    assert list(s.history) == ["I read two files."]
    assert s.stats.waits >= 1


def test_history_is_fifo_with_history_size(monologue_plugins, mock_narrator):
    monologue_plugins.register(SpeakAt(1), "policy")
    with monologue_plugins.session("coder", history_size=2, min_buffer_size=1) as s:
        for i in range(4):
            s.text(f"t{i}")
            s.wait_idle(5)
    histories = [call.history for call in mock_narrator.calls]
    assert histories[0] == []
    assert histories[1] == ["Narration 1 (1 events)."]
    assert histories[3] == ["Narration 2 (1 events).", "Narration 3 (1 events)."]
    assert [c.first for c in mock_narrator.calls] == [True, False, False, False]


def test_history_size_zero_keeps_none(monologue_plugins, mock_narrator):
    monologue_plugins.register(SpeakAt(1), "policy")
    with monologue_plugins.session("coder", history_size=0, min_buffer_size=1) as s:
        s.text("x")
        s.wait_idle(5)
        s.text("y")
    assert all(call.history == [] for call in mock_narrator.calls)
    assert list(s.history) == []


def test_completion_flushes_and_the_final_narrative_is_delivered_before_return(
    monologue_plugins, mock_narrator, collect
):
    mock_narrator.latency = 0.2  # slow: the exit must still wait for it
    got: list[str] = []
    with monologue_plugins.session("coder", on_narrative=lambda n: got.append(n.text)) as s:
        s.text("one thing")
    assert got == ["Narration 1 (2 events)."]
    assert mock_narrator.calls[0].reason == "final"
    assert mock_narrator.calls[0].types == ["text", "completion"]
    # on_complete fires once, after the final narrative was delivered.
    assert [(sid, n) for sid, _, n in collect.completed] == [(s.id, 1)]
    assert collect.types(s.id)[-2:] == ["completion", "narrative"]


def test_empty_buffer_at_completion_gives_no_narrative(monologue_plugins, mock_narrator, collect):
    with monologue_plugins.session("coder") as s:
        pass
    assert mock_narrator.calls == []
    assert collect.types(s.id) == ["completion"]
    assert len(collect.completed) == 1


def test_completion_after_everything_was_narrated_gives_no_narrative(
    monologue_plugins, mock_narrator
):
    monologue_plugins.register(SpeakAt(1), "policy")
    with monologue_plugins.session("coder", min_buffer_size=1) as s:
        s.text("x")
        s.wait_idle(5)
    assert mock_narrator.reasons == ["buffer"]


def test_narrative_event_carries_cost_data(monologue_plugins, mock_narrator, collect):
    mock_narrator.queue(
        Narration(
            text="  I'm reading.  ",
            model="claude-x",
            usage=Usage(input_tokens=120, output_tokens=9),
        )
    )
    with monologue_plugins.session("coder") as s:
        s.text("x")
    narrative = collect.narratives[0]
    assert narrative.visibility == "user"
    assert narrative.data["text"] == "I'm reading."
    assert narrative.data["model"] == "claude-x"
    assert narrative.data["usage"]["input_tokens"] == 120
    assert narrative.data["narrator"] == "mock"
    assert narrative.data["reason"] == "final"
    assert narrative.data["latency_ms"] >= 0
    assert len(narrative.data["covers"]) == 2


def test_a_plugin_reason_ranks_between_the_buffers_and_idle():
    from monologue.pipeline._worker import _priority

    reasons = ["final", "gate", "buffer", "idle", "max_buffer"]
    assert sorted(reasons, key=_priority) == ["buffer", "max_buffer", "gate", "idle", "final"]
    assert _priority("any-plugin-reason") == _priority("gate")
