"""No hook runs on the thread that emits: the agent's thread only stamps and enqueues.

A plugin records the thread of every hook call; sync, async and generator sessions emit
through the public API, and no hook (adapters and the narrator included) may have run on
the emitting thread. The one documented exception, the recorder's ``always`` durability,
makes the emitter wait for the pipeline, yet still runs no hook on it
(``tests/e2e/test_always_durability_threads.py``, where the recorder is installed).
"""

from __future__ import annotations

import threading
from collections import defaultdict
from typing import Any

import pytest
from pytest_monologue import MockNarrator, PluginSandbox

from monologue import Event, hookimpl, monologue

HOOKS = (
    "on_session_start",
    "on_event",
    "on_tool_call",
    "on_tool_result",
    "on_text",
    "should_speak",
    "on_narrative",
    "on_complete",
    "adapt",
)


class ThreadRecorder:
    """Notes the thread of every call of every event hook."""

    def __init__(self) -> None:
        self.threads: dict[str, set[int]] = defaultdict(set)
        self.lock = threading.Lock()

    def note(self, hook: str) -> None:
        with self.lock:
            self.threads[hook].add(threading.get_ident())

    @hookimpl
    def on_session_start(self) -> None:
        self.note("on_session_start")

    @hookimpl
    def on_event(self) -> None:
        self.note("on_event")

    @hookimpl
    def on_tool_call(self) -> None:
        self.note("on_tool_call")

    @hookimpl
    def on_tool_result(self) -> None:
        self.note("on_tool_result")

    @hookimpl
    def on_text(self) -> None:
        self.note("on_text")

    @hookimpl
    def should_speak(self) -> None:
        self.note("should_speak")

    @hookimpl
    def on_narrative(self) -> None:
        self.note("on_narrative")

    @hookimpl
    def on_complete(self) -> None:
        self.note("on_complete")

    @hookimpl
    def adapt(self, obj: Any, session: Any) -> list[Event] | None:
        if not (isinstance(obj, dict) and obj.get("kind") == "step"):
            return None
        self.note("adapt")
        return [session.make_event("text", {"text": obj["text"]})]


@pytest.fixture
def threads(monologue_plugins: PluginSandbox, mock_narrator: MockNarrator) -> ThreadRecorder:
    return monologue_plugins.register(ThreadRecorder(), "threads")


def agent_work(s: Any) -> None:
    for n in range(20):
        call = s.tool_call("Bash", {"command": f"make step{n}"})
        s.tool_result(call.data["tool_use_id"], "ok", is_error=n % 8 == 7)
        s.text(f"step {n} done")
    s.feed({"kind": "step", "text": "fed"})
    s.hint("user_waiting")


def assert_off(threads: ThreadRecorder, emitter: int, expected: tuple[str, ...] = HOOKS) -> None:
    for hook in expected:
        assert threads.threads[hook], f"{hook} never ran: the test would prove nothing"
        assert emitter not in threads.threads[hook], f"{hook} ran on the emitting thread"


def test_sync_session_runs_no_hook_on_the_emitting_thread(
    monologue_plugins: PluginSandbox, threads: ThreadRecorder, mock_narrator: MockNarrator
) -> None:
    with monologue_plugins.session("coder", min_buffer_size=1) as s:
        agent_work(s)
        assert mock_narrator.wait_for_calls(1)
    assert_off(threads, threading.get_ident())
    assert threading.current_thread().name not in {call.thread for call in mock_narrator.calls}


async def test_async_session_runs_no_hook_on_the_event_loop_thread(
    monologue_plugins: PluginSandbox, threads: ThreadRecorder, mock_narrator: MockNarrator
) -> None:
    async with monologue_plugins.session("coder", min_buffer_size=1) as s:
        agent_work(s)
    assert_off(threads, threading.get_ident())


def test_generator_session_runs_no_hook_on_the_consumers_thread(
    monologue_plugins: PluginSandbox, threads: ThreadRecorder
) -> None:
    @monologue("coder", min_buffer_size=1)
    def agent() -> Any:
        for n in range(20):
            yield {"kind": "step", "text": f"step {n}"}

    assert len(list(agent())) == 20
    assert_off(
        threads,
        threading.get_ident(),
        ("on_session_start", "on_event", "on_text", "should_speak", "on_complete", "adapt"),
    )


def test_a_full_queue_makes_the_emitter_wait_and_loses_nothing(
    monologue_plugins: PluginSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    from monologue.pipeline import _queue as _pipeline

    monkeypatch.setattr(_pipeline, "QUEUE_SIZE", 4)
    release = threading.Event()
    seen: list[str] = []

    class Slow:
        @hookimpl
        def on_event(self, event: Event) -> None:
            release.wait(5)
            seen.append(event.id)

    monologue_plugins.register(Slow(), "slow")
    timer = threading.Timer(0.2, release.set)
    with monologue_plugins.session("coder", narrator="none") as s:
        timer.start()
        emitted = [s.text(f"e{n}").id for n in range(50)]
    assert s.stats.backpressure >= 1
    assert seen[: len(emitted)] == emitted  # every event, in order


def test_redaction_happens_once_before_any_hook_sees_the_event(
    monologue_plugins: PluginSandbox,
) -> None:
    seen: list[dict[str, Any]] = []

    class Sink:
        @hookimpl
        def on_event(self, event: Event) -> None:
            seen.append(event.data)

    monologue_plugins.register(Sink(), "sink")
    secret = "sk-ant-api03-" + "a1B2c3D4" * 10
    with monologue_plugins.session("coder", narrator="none") as s:
        s.tool_call("Bash", {"command": f"export ANTHROPIC_API_KEY={secret}"}, "t1")
        s.tool_result("t1", f"token={secret}")
        s.emit("custom.thing", {"password": ["hunter2"], "note": "plain"})
    assert seen and secret not in repr(seen)
    assert {"tool_use_id": "t1"}.items() <= seen[0].items()  # ids are kept as they are
