"""``@monologue`` on every kind of callable, and ``emit``."""

from __future__ import annotations

import asyncio
import threading

import pytest

from monologue import current, emit, monologue


class Boom(Exception):
    pass


def test_sync_function_passes_arguments_result_and_self_through(
    monologue_plugins, mock_narrator, collect
):
    class Agent:
        factor = 3

        @monologue("coder")
        def run(self, x: int, *, plus: int = 0) -> int:
            emit.tool_call("Bash", {"command": "make"})
            assert current() is not None and current().agent == "coder"  # type: ignore[union-attr]
            return x * self.factor + plus

    assert Agent().run(2, plus=1) == 7
    assert Agent.run.__name__ == "run"
    assert current() is None
    assert [c.reason for c in mock_narrator.calls] == ["final"]
    completion = [e for e in collect.events if e.type == "completion"][0]
    assert completion.data == {"result": 7, "is_error": False}


def test_exceptions_pass_through_and_still_flush(monologue_plugins, mock_narrator, collect):
    @monologue("coder")
    def fails():
        emit.text("about to fail")
        raise Boom("disk on fire")

    with pytest.raises(Boom, match="disk on fire"):
        fails()
    assert mock_narrator.calls[0].reason == "final"
    assert mock_narrator.calls[0].types == ["text", "error", "completion"]
    completion = [e for e in collect.events if e.type == "completion"][0]
    assert completion.data["is_error"] is True
    assert len(collect.completed) == 1


def test_bare_decorator_uses_the_qualified_name(monologue_plugins, collect):
    @monologue
    def helper():
        emit.text("hi")

    helper()
    assert collect.events[0].agent.endswith("helper")


def test_each_call_gets_its_own_session(monologue_plugins, mock_narrator):
    ids = []

    @monologue("coder")
    def run():
        ids.append(current().id)  # type: ignore[union-attr]

    run()
    run()
    assert len(set(ids)) == 2


def test_non_json_results_are_recorded_safely(monologue_plugins, collect):
    @monologue("coder", narrator="none")
    def run():
        return object()

    result = run()
    recorded = [e for e in collect.events if e.type == "completion"][0].data["result"]
    assert recorded.startswith("<object object")
    assert result is not None


async def test_async_function(monologue_plugins, mock_narrator):
    @monologue("coder")
    async def run(x):
        emit.text("thinking")
        await asyncio.sleep(0)
        return x + 1

    assert await run(1) == 2
    assert mock_narrator.reasons == ["final"]


async def test_async_exception(monologue_plugins, mock_narrator):
    @monologue("coder")
    async def run():
        emit.text("x")
        raise Boom("async boom")

    with pytest.raises(Boom):
        await run()
    assert mock_narrator.calls[0].types == ["text", "error", "completion"]


def test_generator_items_pass_unchanged_and_are_fed(monologue_plugins, mock_narrator, collect):
    from monologue import Event

    @monologue("coder")
    def gen():
        got = yield Event(type="text", data={"text": "from generator"})
        yield {"echo": got}
        assert current() is not None
        return "finished"

    g = gen()
    first = next(g)
    assert current() is None  # the session is not current between items
    second = g.send("ping")
    assert second == {"echo": "ping"}
    with pytest.raises(StopIteration) as stop:
        next(g)
    assert stop.value.value == "finished"
    assert isinstance(first, Event)
    texts = [e.data.get("text") for e in collect.events if e.type == "text"]
    assert texts == ["from generator"]
    assert collect.events[-2].type == "completion"
    assert collect.events[-2].data["result"] == "finished"


def test_generator_throw_and_close(monologue_plugins, collect):
    caught = []

    @monologue("coder", narrator="none")
    def gen():
        try:
            yield 1
        except Boom as exc:
            caught.append(str(exc))
            yield 2
        yield 3

    g = gen()
    next(g)
    assert g.throw(Boom("thrown in")) == 2
    g.close()
    assert caught == ["thrown in"]
    assert [e.type for e in collect.events][-1] == "completion"

    @monologue("coder", narrator="none")
    def failing():
        yield 1
        raise Boom("inside")

    with pytest.raises(Boom):
        list(failing())
    completions = [e for e in collect.events if e.type == "completion"]
    assert completions[-1].data["is_error"] is True


async def test_async_generator(monologue_plugins, mock_narrator, collect):
    from monologue import Event

    @monologue("coder")
    async def agen(n):
        for i in range(n):
            yield Event(type="text", data={"text": f"step {i}"})
            await asyncio.sleep(0)

    items = [item async for item in agen(3)]
    assert [i.data["text"] for i in items] == ["step 0", "step 1", "step 2"]
    assert mock_narrator.calls[-1].reason == "final"
    assert collect.types()[-2:] == ["completion", "narrative"]


async def test_async_generator_exception_and_athrow(monologue_plugins, collect):
    @monologue("coder", narrator="none")
    async def agen():
        try:
            yield 1
        except Boom:
            yield "recovered"
        raise Boom("after recovery")

    g = agen()
    assert await g.__anext__() == 1
    assert await g.athrow(Boom("x")) == "recovered"
    with pytest.raises(Boom, match="after recovery"):
        await g.__anext__()
    assert collect.events[-1].data["is_error"] is True


def test_emit_outside_a_session_does_nothing():
    assert emit.tool_call("Read", {"path": "x"}) is None
    assert emit.text("nobody listens") is None
    assert emit.feed(object()) == []


def test_threads_do_not_inherit_the_session(monologue_plugins):
    seen = []

    @monologue("coder", narrator="none")
    def run():
        t = threading.Thread(target=lambda: seen.append(current()))
        t.start()
        t.join()

    run()
    assert seen == [None]


def test_scope_must_be_a_string():
    with pytest.raises(TypeError, match="scope must be a string"):
        monologue(42)  # type: ignore[call-overload]
