"""Narrator failures, timeouts and back-off, and events arriving while a turn runs."""

from __future__ import annotations

import logging
import re
import threading
import time

import pytest
from pytest_monologue import Hang
from throwaway_plugins import SpeakAt

from monologue import hookimpl
from monologue.pipeline._worker import BACKOFF_AFTER, MAX_CONSECUTIVE_FAILURES


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
    # The final turn gets what is left of the 0.3 s deadline: "0.3 s", or "0.299 s" on a
    # loaded machine.
    assert re.search(r"TimeoutError: no answer within 0\.(3|29\d) s", reasons[0]), reasons


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
    monkeypatch.setattr("monologue.pipeline._worker.MAX_BACKOFF_S", 0.0)
    monkeypatch.setattr("monologue.pipeline._worker.BACKOFF_AFTER", 100)
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
    # Past the cap the oldest were folded into a digest that a narrative covered: none lost.
    assert set(emitted) <= covered
    assert s.stats.folded > 0
    assert s.stats.dropped == 0


def test_a_timed_out_narration_releases_its_batch(monologue_plugins):
    release = threading.Event()
    held: list[list] = []

    class Hangs:
        @hookimpl
        def narrate(self, events):
            held.append(events)
            release.wait(10)
            return "too late"

    monologue_plugins.register(Hangs(), "hangs")
    try:
        with monologue_plugins.session(
            "coder", narrator="hangs", narrate_timeout_s=0.2, final_wait_s=0.3, max_buffer_size=2
        ) as s:
            s.text("one")
            s.text("two")
            assert s.wait_idle(2)
            assert held and held[0] == [], "the abandoned call no longer holds the batch"
            assert s.stats.narrator_failures == 1
            assert len(s.pending) >= 1  # the batch itself went back to the buffer
    finally:
        release.set()
