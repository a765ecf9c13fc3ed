"""A session's API around the pipeline: threads, subscribers, feed, helpers' checks."""

from __future__ import annotations

import threading

import pytest
from throwaway_plugins import SpeakAt

from monologue import hookimpl, session


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
    # "b" asked for its turn before the close: told on its own, never folded into the final
    # turn, which then holds the completion alone and has nothing to tell.
    assert texts == ["Narration 1 (1 events).", "Narration 2 (1 events)."]
    assert received == ["Narration 1 (1 events)."]


def test_an_event_still_queued_at_close_is_told_in_its_own_turn(monologue_plugins, mock_narrator):
    # The pipeline is still busy with "b" when closing begins: closing waits for it to ask
    # for its turn and for that turn to take it, so the completion never joins it.
    monologue_plugins.register(SpeakAt(1), "policy")

    class Slow:
        @hookimpl
        def on_event(self, event):
            if event.type == "text" and event.data["text"] == "b":
                threading.Event().wait(0.2)

    monologue_plugins.register(Slow(), "slow")
    with monologue_plugins.session("coder", min_buffer_size=1) as s:
        s.text("a")
        s.wait_idle(5)
        s.text("b")
    assert [len(call.events) for call in mock_narrator.calls] == [1, 1]


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


def test_an_unadapted_object_is_reported_once_per_kind_with_its_keys(monologue_plugins, caplog):
    class Unknown:
        def __init__(self) -> None:
            self.kind = "telemetry"
            self.payload = 1

    with (
        caplog.at_level("WARNING", logger="monologue.session"),
        monologue_plugins.session("coder", narrator="none") as s,
    ):
        for _ in range(3):
            s.feed({"role": "assistant", "content": "hi"})
            s.feed(Unknown())
    warnings = [r.getMessage() for r in caplog.records if r.name == "monologue.session"]
    assert len(warnings) == 2, warnings
    assert "a dict (keys: content, role)" in warnings[0]
    assert "Unknown (keys: kind, payload)" in warnings[1]
    assert s.stats.unadapted == 6


def test_tool_result_takes_its_name_from_the_call(monologue_plugins):
    with monologue_plugins.session("coder", narrator="none") as s:
        call = s.tool_call("Bash", {"command": "pytest"})
        s.drain()  # the pipeline thread keeps open_tool_calls
        assert set(s.open_tool_calls) == {call.data["tool_use_id"]}
        result = s.tool_result(call.data["tool_use_id"], "ok")
        s.drain()
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
