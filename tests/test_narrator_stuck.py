"""Narrators that never return: a per-narrator limit pauses them, the pool never deadlocks,
and the end of a session waits ``final_wait_s`` at most."""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from pytest_monologue import PluginSandbox

from monologue import hookimpl
from monologue.events import Event

TIMEOUT_S = 0.2
LIMIT = 2


class HangingNarrator:
    """Answers only once ``release`` is set; counts the calls still inside ``narrate``."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.inside = 0
        self._lock = threading.Lock()

    @hookimpl
    def narrate(self, events: list[Event]) -> str:
        with self._lock:
            self.inside += 1
        try:
            self.release.wait()
        finally:
            with self._lock:
                self.inside -= 1
        return f"I looked at {len(events)} event(s)."


class Observer:
    """Keeps every ``narration_suppressed`` event, from any session."""

    def __init__(self) -> None:
        self.suppressed: list[Event] = []
        self._lock = threading.Lock()

    @hookimpl
    def on_event(self, event: Event) -> None:
        if event.type == "narration_suppressed":
            with self._lock:
                self.suppressed.append(event)

    def reasons(self, session_ids: set[str]) -> list[str]:
        with self._lock:
            return [e.data["reason"] for e in self.suppressed if e.session_id in session_ids]


class QuickNarrator:
    @hookimpl
    def narrate(self, events: list[Event]) -> str:
        return "I'm reading the README."


def one_session(sandbox: PluginSandbox, narrator: str, **config: Any) -> tuple[Any, list[Event]]:
    """A session with two events (one narration turn) and its final turn."""
    seen: list[Event] = []
    settings: dict[str, Any] = {
        "narrator": narrator,
        "narrate_timeout_s": TIMEOUT_S,
        "final_wait_s": TIMEOUT_S,
        "narrator_stuck_limit": LIMIT,
        "max_buffer_size": 2,
        "min_buffer_size": 1,
    }
    settings.update(config)
    with sandbox.session("coder", on_narrative=seen.append, **settings) as session:
        call = session.tool_call("Read", {"file_path": "README.md"})
        session.tool_result(call.data["tool_use_id"], "# monologue")
    return session, seen


def records(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith("monologue") and r.levelno == level
    ]


@pytest.fixture
def hanging(monologue_plugins: PluginSandbox) -> HangingNarrator:
    narrator = HangingNarrator()
    monologue_plugins.register(narrator, "hanging")
    monologue_plugins.register(QuickNarrator(), "quick")
    return narrator


@pytest.fixture
def observer(monologue_plugins: PluginSandbox) -> Observer:
    return monologue_plugins.register(Observer(), "observer")  # type: ignore[no-any-return]


def wait_for(condition: Any, within_s: float = 5.0) -> bool:
    end = time.monotonic() + within_s
    while not condition() and time.monotonic() < end:
        time.sleep(0.02)
    return bool(condition())


def test_a_narrator_that_never_returns_pauses_once_and_resumes_when_it_answers(
    monologue_plugins: PluginSandbox,
    hanging: HangingNarrator,
    observer: Observer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="monologue")
    try:
        # 44 sessions, 8 at a time: more stuck calls than the pool has threads (32) if
        # nothing stopped them.
        with ThreadPoolExecutor(8) as agents:
            sessions = list(
                agents.map(lambda _: one_session(monologue_plugins, "hanging")[0], range(44))
            )
            # Until calls count as stuck (twice the timeout), narration is still tried.
            time.sleep(2 * TIMEOUT_S)
            later = list(
                agents.map(lambda _: one_session(monologue_plugins, "hanging")[0], range(8))
            )
        assert all(s.closed for s in sessions + later)
        paused = [m for m in records(caplog, logging.WARNING) if "is paused" in m]
        assert len(paused) == 1, paused
        assert "narrator 'hanging'" in paused[0]
        assert f"narrator_stuck_limit = {LIMIT}" in paused[0]
        reasons = observer.reasons({s.id for s in later})
        assert reasons and all("narration with 'hanging' is paused" in r for r in reasons)
        # Paused: the later sessions started no call; what hangs is what started before.
        assert hanging.inside <= 44 * 2

        # The pool never deadlocks: another narrator still answers while those hang.
        _, narratives = one_session(monologue_plugins, "quick")
        assert [n.text for n in narratives][:1] == ["I'm reading the README."]
    finally:
        hanging.release.set()

    assert wait_for(lambda: hanging.inside == 0)
    resumed = [m for m in records(caplog, logging.INFO) if "answered again" in m]
    assert resumed == ["narrator 'hanging' answered again; narration with it resumes"]
    _, narratives = one_session(monologue_plugins, "hanging", narrate_timeout_s=5.0)
    assert narratives  # narration is back


def test_the_end_of_a_session_waits_final_wait_s_then_drops_with_a_reason(
    monologue_plugins: PluginSandbox, hanging: HangingNarrator, observer: Observer
) -> None:
    try:
        started = time.monotonic()
        session, narratives = one_session(
            monologue_plugins,
            "hanging",
            narrate_timeout_s=10.0,
            final_wait_s=0.3,
            max_buffer_size=10,
        )
        took = time.monotonic() - started
    finally:
        hanging.release.set()
    assert took < 0.3 + 0.5  # not the 10 s narrate_timeout_s
    assert narratives == []
    (reason,) = observer.reasons({session.id})
    assert "final_wait_s" in reason
    assert "not narrated" in reason
    assert wait_for(lambda: hanging.inside == 0)
    assert session.stats.narratives == 0


def test_more_hanging_calls_than_pool_threads_never_starve_other_narrators(
    monologue_plugins: PluginSandbox, hanging: HangingNarrator
) -> None:
    try:
        # A high limit, so that nothing pauses: 48 calls at once, more than the 32
        # threads of the pool. Abandoned calls no longer count, so a new call still runs.
        with ThreadPoolExecutor(48) as agents:
            list(
                agents.map(
                    lambda _: one_session(
                        monologue_plugins, "hanging", narrator_stuck_limit=1000, max_buffer_size=10
                    ),
                    range(48),
                )
            )
        # The pool is full of hanging calls: at least its 32 threads (an abandoned call's
        # thread is replaced, so a busy machine can see a few more); a loaded machine needs
        # longer than 5 s to start 48 sessions.
        assert wait_for(lambda: hanging.inside >= 32, within_s=30)
        _, narratives = one_session(monologue_plugins, "quick", narrate_timeout_s=2.0)
        assert [n.text for n in narratives][:1] == ["I'm reading the README."]
    finally:
        hanging.release.set()
    assert wait_for(lambda: hanging.inside == 0)
