"""The narration pipeline: buffering, the worker, waits, history, completion, failures."""

from __future__ import annotations

import logging
import threading
import time

import pytest
from throwaway_plugins import SpeakAt

from monologue import Narration, Usage, hookimpl, session
from monologue.testing import WAIT, Hang
from monologue.worker import BACKOFF_AFTER, MAX_CONSECUTIVE_FAILURES


def pair(s, n: int, tool: str = "Read") -> None:
    for i in range(n):
        call = s.tool_call(tool, {"path": f"f{i}.py"})
        s.tool_result(call.data["tool_use_id"], f"content {i}")


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
    assert len(mock_narrator.calls[0].events) == 7  # six texts and the completion


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


def test_raising_narrator_never_fails_the_agent(monologue_plugins, mock_narrator, collect, caplog):
    caplog.set_level(logging.ERROR, logger="monologue")
    mock_narrator.queue(RuntimeError("model exploded"))
    with monologue_plugins.session("coder") as s:
        s.text("x")
    assert "plugin 'mock' raised in narrate: RuntimeError: model exploded" in caplog.text
    suppressed = [e for e in collect.events if e.type == "narration_suppressed"]
    assert "narrator 'mock' failed (RuntimeError: model exploded)" in suppressed[0].data["reason"]
    assert s.stats.narrator_failures == 1


@pytest.mark.parametrize("answer", [42, ["a list"], object()])
def test_non_text_answers_are_failures_not_crashes(monologue_plugins, mock_narrator, answer):
    mock_narrator.queue(answer)
    with monologue_plugins.session("coder") as s:
        s.text("x")
    assert s.stats.narrator_failures == 1
    assert monologue_plugins.hooks.errors[("mock", "narrate")] == 1


def test_hanging_narrator_is_bounded_by_the_timeout(monologue_plugins, mock_narrator, collect):
    mock_narrator.queue(Hang(30))
    started = time.monotonic()
    with monologue_plugins.session("coder", narrate_timeout_s=0.3) as s:
        s.text("x")
    elapsed = time.monotonic() - started
    assert elapsed < 3  # bounded by the timeout, not by the 30 s hang
    assert s.stats.narrator_failures == 1
    reasons = [e.data["reason"] for e in collect.events if e.type == "narration_suppressed"]
    assert "TimeoutError: no answer within 0.3 s" in reasons[0]


def test_hung_buffer_turn_still_leaves_a_bounded_exit(monologue_plugins, mock_narrator):
    monologue_plugins.register(SpeakAt(1), "policy")
    mock_narrator.queue(Hang(30), Hang(30))
    started = time.monotonic()

    @__import__("monologue").monologue("coder", narrate_timeout_s=0.4, min_buffer_size=1)
    def agent():
        __import__("monologue").emit.text("x")
        return "done"

    assert agent() == "done"
    assert time.monotonic() - started < 3


def test_repeated_failures_back_off_and_then_stop(monologue_plugins, mock_narrator, caplog):
    caplog.set_level(logging.ERROR, logger="monologue")
    monologue_plugins.register(SpeakAt(1), "policy")
    mock_narrator.queue(*[ValueError(f"fail {i}") for i in range(100)])
    with monologue_plugins.session("coder", min_buffer_size=1, on_narrator_error="drop") as s:
        for i in range(200):
            s.text(str(i))
            s.wait_idle(5)
        calls_during = len(mock_narrator.calls)
    # Without backoff every one of the 200 events would have asked the narrator.
    assert BACKOFF_AFTER <= calls_during < MAX_CONSECUTIVE_FAILURES + 1
    assert "plugin 'mock' has raised" in caplog.text or calls_during < 100
    assert s.stats.dropped >= calls_during


def test_disabled_after_max_failures(monologue_plugins, mock_narrator, caplog, monkeypatch):
    caplog.set_level(logging.ERROR, logger="monologue")
    monkeypatch.setattr("monologue.worker.MAX_BACKOFF_S", 0.0)
    monkeypatch.setattr("monologue.worker.BACKOFF_AFTER", 100)
    monologue_plugins.register(SpeakAt(1), "policy")
    mock_narrator.queue(*[ValueError("no") for _ in range(50)])
    with monologue_plugins.session("coder", min_buffer_size=1) as s:
        for i in range(30):
            s.text(str(i))
            s.wait_idle(5)
        assert s.narration_disabled
    assert len(mock_narrator.calls) == MAX_CONSECUTIVE_FAILURES
    assert "narration is off for the rest of this session" in caplog.text


def test_events_arriving_during_a_narration_are_kept_for_the_next(monologue_plugins):
    monologue_plugins.register(SpeakAt(1), "policy")
    release = threading.Event()
    started = threading.Event()
    seen: list[list[str]] = []

    class BlockedOnce:
        @hookimpl
        def narrate(self, events):
            seen.append([e.data.get("text") for e in events])
            if len(seen) == 1:
                started.set()
                release.wait(5)
            return f"narration {len(seen)}"

    monologue_plugins.register(BlockedOnce(), "blocked")
    with monologue_plugins.session("coder", narrator="blocked", min_buffer_size=1) as s:
        s.text("first")
        assert started.wait(5)
        s.text("second")
        s.text("third")
        release.set()
        s.wait_idle(5)
    assert seen == [["first"], ["second", "third"]]


def test_rapid_events_with_slow_narrator_block_nothing_and_lose_nothing(
    monologue_plugins, mock_narrator, collect
):
    monologue_plugins.register(SpeakAt(2), "policy")
    mock_narrator.latency = 0.2
    peak = 0

    class Peak:
        @hookimpl
        def on_event(self, session):
            nonlocal peak
            peak = max(peak, len(session.pending))

    monologue_plugins.register(Peak(), "peak")
    emitted: list[str] = []
    with monologue_plugins.session(
        "coder", buffer_cap=50, max_buffer_size=10, narrate_timeout_s=2
    ) as s:
        started = time.monotonic()
        for i in range(1000):
            emitted.append(s.text(f"e{i}").id)
        emit_time = time.monotonic() - started
    # 1000 events took less than one narration: the agent never waited for the narrator.
    assert emit_time < 0.2 * 5
    assert peak <= 50
    covered = {event_id for n in collect.narratives for event_id in n.data["covers"]}
    narrated = [i for i in emitted if i in covered]
    # Every event was either narrated or counted as dropped by the cap; none vanished.
    assert len(narrated) + s.stats.dropped == len(emitted)
    assert s.stats.dropped > 0


def test_two_concurrent_threads_never_mix(monologue_plugins, mock_narrator):
    monologue_plugins.register(SpeakAt(3), "policy")
    mock_narrator.latency = 0.01
    results: dict[str, object] = {}

    def agent(name: str) -> None:
        with session(name, min_buffer_size=3) as s:
            for i in range(30):
                s.text(f"{name}-{i}")
            results[name] = s

    threads = [threading.Thread(target=agent, args=(n,)) for n in ("alpha", "beta")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for call in mock_narrator.calls:
        agents = {e.agent for e in call.events}
        sessions = {e.session_id for e in call.events}
        assert len(agents) == 1 and sessions == {call.session_id}
        texts = [e.data.get("text") for e in call.events if e.type == "text"]
        assert all(t.startswith(next(iter(agents))) for t in texts)


async def test_concurrent_tasks_and_nested_scopes_never_mix(monologue_plugins, mock_narrator):
    import asyncio

    from monologue import current, emit, monologue

    seen: dict[str, list[str]] = {}

    @monologue("inner")
    async def inner(tag: str) -> str:
        emit.text(f"inner-{tag}")
        await asyncio.sleep(0.01)
        seen.setdefault(current().id, []).append(f"inner-{tag}")  # type: ignore[union-attr]
        return current().agent  # type: ignore[union-attr]

    @monologue("outer")
    async def outer(tag: str) -> tuple[str, str, str]:
        me = current()
        emit.text(f"outer-{tag}")
        inner_agent = await inner(tag)
        emit.text(f"outer-after-{tag}")
        assert current() is me
        return me.id, me.agent, inner_agent  # type: ignore[union-attr]

    a, b = await asyncio.gather(outer("ALPHA"), outer("BETA"))
    assert a[0] != b[0]
    assert (a[1], a[2]) == ("outer", "inner")
    assert current() is None
    for call in mock_narrator.calls:
        assert {e.session_id for e in call.events} == {call.session_id}
        agents = {e.agent for e in call.events}
        assert len(agents) == 1
        texts = " ".join(e.data.get("text", "") for e in call.events)
        assert not ("ALPHA" in texts and "BETA" in texts)


async def test_subscribe_as_callback_and_async_iterator(monologue_plugins, mock_narrator):
    monologue_plugins.register(SpeakAt(1), "policy")
    received: list[str] = []
    async with monologue_plugins.session("coder", min_buffer_size=1) as s:
        stream = s.subscribe()
        unsubscribe = s.subscribe(lambda n: received.append(n.text))
        s.text("a")
        await __import__("asyncio").to_thread(s.wait_idle, 5)
        unsubscribe()
        s.text("b")
    texts = [n.text async for n in stream]
    assert texts == ["Narration 1 (1 events).", "Narration 2 (2 events)."]
    assert received == ["Narration 1 (1 events)."]


def test_subscribe_without_callback_outside_async_is_an_error(monologue_plugins):
    with (
        monologue_plugins.session("coder", narrator="none") as s,
        pytest.raises(RuntimeError, match="must be called from async code"),
    ):
        s.subscribe()


def test_failing_subscriber_is_reported_and_others_still_receive(
    monologue_plugins, mock_narrator, caplog
):
    got: list[str] = []

    def broken(_):
        raise RuntimeError("subscriber broke")

    with monologue_plugins.session("coder") as s:
        s.subscribe(broken)
        s.subscribe(lambda n: got.append(n.text))
        s.text("x")
    assert got == ["Narration 1 (2 events)."]
    assert "subscriber broke" in caplog.text


def test_feed_goes_through_adapt_and_unknown_objects_are_ignored(
    monologue_plugins, mock_narrator, collect
):
    class Adapter:
        @hookimpl
        def adapt(self, obj, session):
            from monologue import Event

            if isinstance(obj, dict) and "say" in obj:
                return [Event(type="text", data={"text": obj["say"]}, agent=obj.get("who", ""))]
            return None

    monologue_plugins.register(Adapter(), "adapter")
    with monologue_plugins.session("coder") as s:
        fed = s.feed({"say": "hello", "who": "coder/sub"})
        assert s.feed(object()) == []
    assert fed[0].session_id == s.id
    assert fed[0].agent == "coder/sub"  # sub-agent attribution survives
    assert s.stats.unadapted == 1


def test_tool_result_takes_its_name_from_the_call(monologue_plugins):
    with monologue_plugins.session("coder", narrator="none") as s:
        call = s.tool_call("Bash", {"command": "pytest"})
        assert set(s.open_tool_calls) == {call.data["tool_use_id"]}
        result = s.tool_result(call.data["tool_use_id"], "ok")
        assert s.open_tool_calls == {}
    assert result.data["tool_name"] == "Bash"


def test_events_outside_an_active_session(monologue_plugins):
    s = monologue_plugins.session("coder", narrator="none")
    with pytest.raises(RuntimeError, match="has not started"):
        s.text("too early")
    with s:
        pass
    s.text("too late")  # ignored, counted, never raises into the agent
    assert s.stats.late_events == 1


def test_bad_agent_name_is_rejected():
    with pytest.raises(ValueError, match="non-empty string"):
        session("")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: s.tool_call(None), "tool_call(): tool_name must be str, not NoneType"),
        (lambda s: s.tool_call("Read", "a.py"), "tool_call(): input must be dict or None, not str"),
        (lambda s: s.tool_result(7, "x"), "tool_result(): tool_use_id must be str, not int"),
        (lambda s: s.tool_result("t", "x", is_error="no"), "is_error must be bool, not str"),
        (lambda s: s.text(b"bytes"), "text(): text must be str, not bytes"),
    ],
)
def test_helpers_reject_wrong_argument_types_by_name(monologue_plugins, call, message):
    with monologue_plugins.session("coder", narrator="none") as s, pytest.raises(TypeError) as info:
        call(s)
    assert message in str(info.value)


def test_structured_tool_output_is_validated_as_json(monologue_plugins):
    with monologue_plugins.session("coder", narrator="none") as s:
        blocks = [{"type": "text", "text": "ok"}]
        assert s.tool_result("t1", blocks).data["output"] == blocks
        with pytest.raises(ValueError, match=r"data\.output"):
            s.tool_result("t2", {"raw": b"\x00bytes"})
