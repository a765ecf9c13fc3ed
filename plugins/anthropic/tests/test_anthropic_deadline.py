"""One deadline per narration, enforced by the transport, against servers that misbehave.

Through the real SDK and a real socket: a server that trickles one byte at a time, hangs
(before or after its headers), answers with bytes that are not HTTP, or hangs up. Each
narration ends by its deadline; afterwards no thread or socket of it is left (the server's
handler thread ends only when the client has closed its side); and the next narration works
once the server answers again.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

import pytest
from anthropic_fixtures import Observer
from pytest_monologue import PluginSandbox
from pytest_monologue.anthropic import LoopbackAPI, Reply

from monologue.events import Event

TIMEOUT_S = 1.0
RECOVERED = "I'm reading the README again."


def fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def settle(count: Callable[[], int], at_most: int, within_s: float = 5.0) -> int:
    """``count()`` once it is at most ``at_most``, or its value after ``within_s``."""
    end = time.monotonic() + within_s
    while (value := count()) > at_most and time.monotonic() < end:
        time.sleep(0.05)
    return value


def one_session(sandbox: PluginSandbox, timeout_s: float = TIMEOUT_S) -> tuple[list[Event], float]:
    """Two events (a narration turn), then the end of the session (the final turn)."""
    narratives: list[Event] = []
    started = time.monotonic()
    with sandbox.session(
        "coder",
        on_narrative=narratives.append,
        max_buffer_size=2,
        min_buffer_size=1,
        narrate_timeout_s=timeout_s,
    ) as session:
        call = session.tool_call("Read", {"file_path": "README.md"})
        session.tool_result(call.data["tool_use_id"], "# monologue")
        assert session.wait_idle(timeout=10)
    return narratives, time.monotonic() - started


FAULTS = {
    "trickle": Reply.trickle(0.1),
    "hang": Reply.hang(),
    "hang_after_headers": Reply.hang(after_headers=True),
    "garbage": Reply.garbage(),
    "close": Reply.close(),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_misbehaving_server_costs_one_deadline_and_leaves_nothing_behind(
    fault: str,
    monologue_plugins: PluginSandbox,
    anthropic_narrator: LoopbackAPI,
    observer: Observer,
) -> None:
    # The SDK is imported, this thread's client and the pool's threads exist after this.
    one_session(monologue_plugins, timeout_s=10.0)
    threads, files = threading.active_count(), fds()
    warm_up = len(observer.of_type("narration_suppressed"))

    for _ in range(2):
        anthropic_narrator.script(FAULTS[fault], FAULTS[fault])
        narratives, took = one_session(monologue_plugins)
        assert narratives == []
        assert took < 2 * TIMEOUT_S + 1.0  # two turns, each ended by its deadline

    # Old transport: each trickling or header-only request kept its pool thread, socket
    # and server thread for good, so every session added threads and descriptors.
    assert settle(threading.active_count, threads + 1) <= threads + 1
    assert settle(fds, files + 1) <= files + 1
    reasons = [e.data["reason"] for e in observer.of_type("narration_suppressed")][warm_up:]
    assert len(reasons) == 4
    # The plugin's own deadline ends the request, before the core's timeout gives up on it.
    assert not any("no answer within" in reason for reason in reasons)

    anthropic_narrator.script(Reply.ok(RECOVERED))
    narratives, _ = one_session(monologue_plugins)
    assert [n.text for n in narratives][:1] == [RECOVERED]


def test_a_trickle_is_cut_at_the_deadline_and_says_so(
    monologue_plugins: PluginSandbox, anthropic_narrator: LoopbackAPI, observer: Observer
) -> None:
    # A byte every 0.5 s: without the socket shut down, the read blocked when the deadline
    # passes would go on for up to 0.5 s more, past the core's own timeout.
    anthropic_narrator.script(Reply.trickle(0.5), Reply.trickle(0.5))

    one_session(monologue_plugins)

    first = observer.of_type("narration_suppressed")[0]
    assert "no complete answer" in first.data["reason"]
    assert "the connection was closed" in first.data["reason"]


def test_garbage_and_a_hang_up_are_worded_as_what_the_server_did(
    monologue_plugins: PluginSandbox, anthropic_narrator: LoopbackAPI, observer: Observer
) -> None:
    anthropic_narrator.script(Reply.garbage(), Reply.close())

    one_session(monologue_plugins)

    garbled, closed = (e.data["reason"] for e in observer.of_type("narration_suppressed"))
    assert "cannot connect" not in garbled + closed
    assert "closed the connection without a complete answer" in closed
    assert "answered with something that is not HTTP" in garbled
