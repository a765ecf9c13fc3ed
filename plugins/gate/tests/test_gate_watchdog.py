"""The idle watchdog on a fake clock: checked by hand, and through its real thread."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from gate_fixtures import FakeClock
from monologue_gate import GateState, Watchdog, use_watchdog
from pytest_monologue import WAIT, MockNarrator, PluginSandbox

from monologue import Session
from monologue.events import utcnow


def gate_state(s: object) -> GateState:
    state = s.state["gate"]  # type: ignore[attr-defined]
    assert isinstance(state, GateState)
    return state


def test_idle_fires_after_the_interval_once_per_quiet_stretch(
    gate: PluginSandbox, mock_narrator: MockNarrator, clock: FakeClock, watchdog: Watchdog
) -> None:
    with gate.session("coder", max_buffer_size=50) as s:
        s.tool_call("Bash", {"command": "pytest -q"})
        s.drain()
        clock.advance(14.9)
        watchdog.check()
        assert s.wait_idle(5)
        assert mock_narrator.calls == []
        clock.advance(0.1)
        watchdog.check()
        assert mock_narrator.wait_for_calls(1)
        assert s.wait_idle(5)
        assert mock_narrator.calls[0].reason == "idle"
        assert mock_narrator.calls[0].types == ["tool_call"]
        assert list(s.open_tool_calls) == [mock_narrator.calls[0].events[0].data["tool_use_id"]]
        # Still quiet: no second idle narration however long the step runs.
        for _ in range(4):
            clock.advance(15)
            assert watchdog.check() == pytest.approx(watchdog.poll_s)  # looks again soon
        assert s.wait_idle(5)
        assert len(mock_narrator.calls) == 1
        # New activity re-arms it; nothing was said for a minute, so the next check speaks.
        s.text("the tests are slow today")
        s.drain()  # the gate sees the activity on the pipeline thread
        watchdog.check()
        assert mock_narrator.wait_for_calls(2)
        assert s.wait_idle(5)
    assert mock_narrator.reasons == ["idle", "idle"]
    assert mock_narrator.calls[1].types == ["text"]
    assert gate_state(s).watch is None


def test_a_narrative_restarts_the_quiet_stretch(
    gate: PluginSandbox, mock_narrator: MockNarrator, clock: FakeClock, watchdog: Watchdog
) -> None:
    with gate.session("coder", max_buffer_size=50) as s:
        clock.advance(10)
        s.text("reading")
        s.hint("user_waiting")
        assert mock_narrator.wait_for_calls(1)
        assert s.wait_idle(5)
        clock.advance(10)  # 20 s since the start, 10 s since the narrative
        watchdog.check()
        assert s.wait_idle(5)
        assert mock_narrator.reasons == ["gate: hint user_waiting"]
        s.text("more reading")
        s.drain()
        clock.advance(5)
        watchdog.check()
        assert mock_narrator.wait_for_calls(2)
        assert s.wait_idle(5)
    assert mock_narrator.reasons == ["gate: hint user_waiting", "idle"]


def test_a_waiting_narrator_does_not_make_the_watchdog_repeat_itself(
    gate: PluginSandbox, mock_narrator: MockNarrator, clock: FakeClock, watchdog: Watchdog
) -> None:
    mock_narrator.queue(WAIT)
    with gate.session("coder", max_buffer_size=50) as s:
        clock.advance(15)
        watchdog.check()
        assert mock_narrator.wait_for_calls(1)
        assert s.wait_idle(5)
        s.text("busy")  # activity, but the last idle turn was just now
        s.drain()
        clock.advance(14)
        watchdog.check()
        assert s.wait_idle(5)
        assert len(mock_narrator.calls) == 1
        clock.advance(1)
        watchdog.check()
        assert mock_narrator.wait_for_calls(2)
        assert s.wait_idle(5)
    assert mock_narrator.reasons == ["idle", "idle"]
    assert mock_narrator.calls[1].types == ["text"]


def test_no_idle_after_completion_and_the_watch_ends_with_its_session(
    gate: PluginSandbox, mock_narrator: MockNarrator, clock: FakeClock, watchdog: Watchdog
) -> None:
    with gate.session("coder") as s:
        s.text("done soon")
        assert watchdog.watched == 1
    assert watchdog.watched == 0
    calls = len(mock_narrator.calls)
    clock.advance(60)
    assert watchdog.check() is None
    assert len(mock_narrator.calls) == calls
    assert "idle" not in mock_narrator.reasons


def test_a_closing_session_is_dropped_without_an_idle_turn(
    gate: PluginSandbox, mock_narrator: MockNarrator, clock: FakeClock, watchdog: Watchdog
) -> None:
    s = gate.session("coder")
    s.start()
    s.close()
    # As if the watchdog looked between the completion and on_complete.
    watch = watchdog.watch(s, 15)
    clock.advance(30)
    assert watchdog.check() is None
    assert watchdog.watched == 0
    assert watch.fired == 0


def test_interval_zero_turns_the_watchdog_off(
    gate: PluginSandbox, mock_narrator: MockNarrator, watchdog: Watchdog
) -> None:
    with gate.session("coder", idle_interval_s="0") as s:
        assert gate_state(s).watch is None
        assert watchdog.watched == 0


def test_the_interval_comes_from_configuration(
    gate: PluginSandbox, mock_narrator: MockNarrator, clock: FakeClock, watchdog: Watchdog
) -> None:
    with gate.session("coder", idle_interval_s="2.5") as s:
        clock.advance(2.4)
        assert watchdog.check() == pytest.approx(0.1)
        clock.advance(0.1)
        watchdog.check()
        assert mock_narrator.wait_for_calls(1)
        assert s.wait_idle(5)
    assert mock_narrator.reasons[0] == "idle"


def test_check_returns_the_time_until_the_next_due_session(
    gate: PluginSandbox, mock_narrator: MockNarrator, clock: FakeClock, watchdog: Watchdog
) -> None:
    assert watchdog.check() is None
    with gate.session("a", idle_interval_s=10), gate.session("b", idle_interval_s=4):
        assert watchdog.check() == pytest.approx(4)
        clock.advance(3)
        assert watchdog.check() == pytest.approx(1)


def test_many_sessions_share_one_watchdog(
    gate: PluginSandbox, mock_narrator: MockNarrator, clock: FakeClock, watchdog: Watchdog
) -> None:
    sessions = [gate.session(f"agent-{i}", max_buffer_size=50) for i in range(20)]
    for s in sessions:
        s.start()
    assert watchdog.watched == 20
    clock.advance(15)
    watchdog.check()
    assert mock_narrator.wait_for_calls(20)
    for s in sessions:
        assert s.wait_idle(5)
        s.close()
    assert watchdog.watched == 0
    assert sorted(call.session_id for call in mock_narrator.calls) == sorted(s.id for s in sessions)


class BrokenSession(Session):
    def request_narration(self, reason: str = "buffer") -> None:
        raise RuntimeError("worker gone")


def test_a_session_that_fails_its_idle_request_does_not_stop_the_others(
    gate: PluginSandbox,
    mock_narrator: MockNarrator,
    clock: FakeClock,
    watchdog: Watchdog,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with BrokenSession("broken", pm=gate.pm) as broken, gate.session("fine") as fine:
        clock.advance(15)
        with caplog.at_level(logging.ERROR, logger="monologue.gate"):
            watchdog.check()
        assert mock_narrator.wait_for_calls(1)
        assert fine.wait_idle(5)
    assert [call.session_id for call in mock_narrator.calls] == [fine.id]
    assert f"idle request failed for session {broken.id}" in caplog.text
    assert "RuntimeError: worker gone" in caplog.text


@pytest.fixture
def threaded(clock: FakeClock) -> Iterator[Watchdog]:
    with use_watchdog(Watchdog(clock, threaded=True)) as dog:
        yield dog


def wait_until_stopped(dog: Watchdog, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while dog.running:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def test_the_real_thread_fires_and_ends_with_the_last_session(
    monologue_plugins: PluginSandbox,
    mock_narrator: MockNarrator,
    clock: FakeClock,
    threaded: Watchdog,
) -> None:
    monologue_plugins.load("gate")
    assert not threaded.running
    with monologue_plugins.session("coder", max_buffer_size=50) as s:
        assert threaded.running
        names = [thread.name for thread in threading.enumerate()]
        assert names.count("monologue-gate-watchdog") == 1
        s.tool_call("Bash", {"command": "make test"})
        s.drain()
        clock.advance(15)
        threaded.wake()
        assert mock_narrator.wait_for_calls(1)
        assert s.wait_idle(5)
        assert mock_narrator.calls[0].reason == "idle"
    assert wait_until_stopped(threaded)
    # The next session starts it again.
    with monologue_plugins.session("coder", max_buffer_size=50):
        assert threaded.running
    assert wait_until_stopped(threaded)


def test_the_idle_narrative_says_what_is_still_running(
    monologue_plugins: PluginSandbox, clock: FakeClock, watchdog: Watchdog
) -> None:
    pytest.importorskip("monologue_template", reason="needs the monologue-template narrator")
    monologue_plugins.load("gate", "template")
    heard: list[str] = []
    with monologue_plugins.session(
        "coder",
        narrator="template",
        max_buffer_size=50,
        on_narrative=lambda n: heard.append(str(n)),
    ) as s:
        call = s.make_event(
            "tool_call",
            {"tool_name": "Bash", "tool_use_id": "t1", "input": {"command": "pytest -q"}},
            ts=utcnow() - timedelta(seconds=40),
        )
        s.dispatch(call)
        s.drain()
        clock.advance(15)
        watchdog.check()
        assert s.wait_idle(5)
        assert len(heard) == 1
        s.tool_result("t1", "12 passed")
    assert "40 s so far" in heard[0], heard
