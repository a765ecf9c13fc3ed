"""``narration_share``: after a turn, narration rests in proportion to the CPU it used, so
that a fast narrator under a flood of events does not take the interpreter from the agent.

Only lower bounds on waits are asserted (a loaded machine makes rests longer, never
shorter), and whether a turn waited at all, never how fast anything ran.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from pytest_monologue import PluginSandbox

from monologue import Session, hookimpl


class BusyNarrator:
    """Burns ``cpu_s`` of CPU per call and notes when each call started and ended."""

    def __init__(self, cpu_s: float) -> None:
        self.cpu_s = cpu_s
        self.calls: list[tuple[str, float, float, float]] = []  # reason, start, end, cpu
        self.sizes: list[int] = []
        self._cond = threading.Condition()

    @hookimpl
    def narrate(self, events: list[Any], reason: str) -> str:
        started, cpu_started = time.monotonic(), time.thread_time()
        while time.thread_time() - cpu_started < self.cpu_s:
            pass
        with self._cond:
            self.calls.append((reason, started, time.monotonic(), time.thread_time() - cpu_started))
            self.sizes.append(len(events))
            self._cond.notify_all()
        return f"I handled {len(events)} events."

    def wait_for_calls(self, count: int, timeout: float = 10.0) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: len(self.calls) >= count, timeout)


def busy_session(
    sandbox: PluginSandbox, cpu_s: float, share: float, max_buffer: int = 1
) -> tuple[BusyNarrator, Session]:
    """A session (not started) narrated by a :class:`BusyNarrator` of ``cpu_s`` a call."""
    busy = sandbox.register(BusyNarrator(cpu_s), "busy")
    session = sandbox.session(
        narrator="busy", narration_share=share, max_buffer_size=max_buffer, min_buffer_size=1
    )
    return busy, session


def test_a_turn_rests_in_proportion_to_the_cpu_the_last_one_used(monologue_plugins):
    busy, s = busy_session(monologue_plugins, 0.02, 0.25)
    with s:
        s.text("one")
        assert busy.wait_for_calls(1)
        s.text("two")  # asked for at once; the worker rests first
        assert busy.wait_for_calls(2)
    (_, _, first_end, first_cpu), (_, second_start, _, _) = busy.calls[:2]
    # A share of 1/4 rests three times the CPU the turn used (the narrator's share of it is
    # what this narrator measured; the worker's own adds to the rest).
    assert second_start - first_end >= 3 * first_cpu * 0.95


def test_events_arriving_during_a_rest_join_the_next_turn(monologue_plugins):
    busy, s = busy_session(monologue_plugins, 0.05, 0.05, max_buffer=50)
    with s:
        for n in range(50):
            s.text(f"event {n}")  # the 50th asks for a turn (max_buffer)
        assert busy.wait_for_calls(1)
        for n in range(50):  # the next 50 ask again, during the rest (about 1 s)
            s.text(f"more {n}")
        s.drain()
        time.sleep(0.1)
        assert len(busy.calls) == 1  # still resting: nothing narrated one event at a time
    # Closing ends the rest: the 50 newer events are told in one turn, not 50.
    assert [reason for reason, *_ in busy.calls] == ["max_buffer", "max_buffer"]
    assert busy.sizes == [50, 50]


def test_closing_never_waits_for_a_rest(monologue_plugins):
    busy, s = busy_session(monologue_plugins, 0.05, 0.01)
    s.start()
    s.text("one")
    assert busy.wait_for_calls(1)
    # The narrator has answered; the turn is over once its narrative is delivered (a turn
    # still running at the close would take "two" into the final turn, by design).
    assert s.wait_idle(5)
    s.text("two")  # a turn asked for while the worker rests up to MAX_REST_S (1 s)
    s.drain()
    closing = time.monotonic()
    s.close()
    assert time.monotonic() - closing < 0.9  # the rest was cut short, not waited out
    # The turn asked for during the rest told "two" before the session ended.
    assert [reason for reason, *_ in busy.calls] == ["max_buffer", "max_buffer"]
    assert s.stats.narratives == 2


def test_a_share_of_one_never_rests(monologue_plugins):
    busy, s = busy_session(monologue_plugins, 0.02, 1.0)
    with s:
        for n in range(3):
            s.text(f"event {n}")
            assert busy.wait_for_calls(n + 1)  # each one narrated before the next is sent
    assert [reason for reason, *_ in busy.calls][:3] == ["max_buffer"] * 3


def test_a_share_outside_zero_to_one_is_refused_in_the_cli(monologue_cli):
    result = monologue_cli("config", "-c", "narration_share=1.5")
    assert result.exit_code == 2
    assert "narration_share" in result.stderr
