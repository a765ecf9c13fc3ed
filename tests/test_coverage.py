"""Every event is covered by some narrative, with a slow or waiting narrator, in bounded
memory: the pending buffer folds what it cannot hold into the next narration's digest."""

from __future__ import annotations

import time
import tracemalloc

import pytest
from pytest_monologue import MockNarrator, PluginSandbox

from monologue import Narration, hookimpl
from monologue.digest import _fold
from monologue.events import FOLDED_TYPE, Event, Usage

EVENTS = 2_000
LATENCY_S = 0.05


class PendingPeak:
    """Observes the pending buffer's length after every event (a real plugin hook)."""

    def __init__(self) -> None:
        self.peak = 0

    @hookimpl
    def on_event(self, session):
        self.peak = max(self.peak, len(session.pending))


def test_2000_events_with_a_50_ms_narrator_are_all_covered_without_blocking_the_agent(
    monologue_plugins: PluginSandbox, mock_narrator: MockNarrator
) -> None:
    mock_narrator.latency = LATENCY_S
    pending = monologue_plugins.register(PendingPeak(), "peak")
    covers: list[str] = []
    emitted: list[str] = []
    with monologue_plugins.session("coder", buffer_cap=200, narrate_timeout_s=5) as s:
        s.subscribe(lambda narrative: covers.extend(narrative.data["covers"]))
        tracemalloc.start()
        started = time.perf_counter()
        for n in range(EVENTS // 2):
            use_id = f"toolu_{n}"
            emitted.append(s.tool_call("Bash", {"command": f"make step{n}"}, use_id).id)
            emitted.append(s.tool_result(use_id, "ok", is_error=n % 100 == 0).id)
        emit_s = time.perf_counter() - started
        _, peak_bytes = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    # Narrating one event at a time would take EVENTS * 50 ms = 100 s.
    assert emit_s < EVENTS * LATENCY_S / 20
    assert pending.peak <= 200
    assert s.stats.folded > 0
    assert s.stats.dropped == 0
    assert set(emitted) <= set(covers), f"{len(set(emitted) - set(covers))} events uncovered"
    # The events themselves are not kept: at most the cap's worth, plus the digest's ids.
    assert peak_bytes < 4_000_000
    folded = [call for call in mock_narrator.calls if call.types[0] == FOLDED_TYPE]
    assert folded, "a narration received the digest"
    digests = [call.events[0].data for call in folded]
    for digest in digests:
        # Every folded call ran its own command: the digest counts them all (past
        # TRACK_LIMIT distinct ones, it says the total is a floor), names 20 at most.
        bash = digest["tools"]["Bash"]
        if digest["commands_at_least"]:
            assert _fold.TRACK_LIMIT <= digest["commands_total"] <= bash
        else:
            assert digest["commands_total"] == bash > 0
        assert len(digest["commands"]) == min(20, digest["commands_total"])
    # max_buffer_size is a hard cap: no narration was handed more than that many events.
    assert max(len(call.events) for call in mock_narrator.calls) <= s.config.max_buffer_size


def test_a_narrator_that_waits_until_the_end_still_covers_everything_by_range(
    monologue_plugins: PluginSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_fold, "ID_LIMIT", 50)
    seen: list[list[Event]] = []

    class WaitsUntilTheEnd:
        @hookimpl
        def narrate(self, events, reason):
            seen.append(events)
            return f"All {len(events)} done." if reason == "final" else "..."

    monologue_plugins.register(WaitsUntilTheEnd(), "waits")
    narratives: list[Event] = []
    with monologue_plugins.session("coder", narrator="waits", buffer_cap=20) as s:
        s.subscribe(narratives.append)
        emitted = [s.text(f"e{n}").id for n in range(300)]
        s.wait_idle(5)
        assert len(s.pending) <= 20
    assert len(narratives) == 1
    data = narratives[0].data
    first, last = data["covers_range"]
    assert first == emitted[0]
    listed = set(data["covers"])
    ranged = emitted[emitted.index(first) : emitted.index(last) + 1]
    assert set(emitted) <= listed | set(ranged)
    assert len(listed) < 50 < len(ranged), "the folded ids are in the range, not listed"
    assert s.stats.dropped == 0


def test_usage_reported_with_a_wait_answer_is_recorded(
    monologue_plugins: PluginSandbox, mock_narrator: MockNarrator, collect
) -> None:
    mock_narrator.queue(Narration(text="", model="m1", usage=Usage(input_tokens=7)))
    with monologue_plugins.session("coder", min_buffer_size=1, max_buffer_size=1) as s:
        s.text("hello")
        s.wait_idle(5)
    waited = [e for e in collect.events if e.type == "narration_suppressed"]
    assert len(waited) == 1
    assert waited[0].data["usage"] == {"input_tokens": 7, "output_tokens": 0}
    assert waited[0].data["model"] == "m1"
    assert "answered wait" in waited[0].data["reason"]
    assert s.stats.waits == 1
    # A wait answer without usage records nothing: there was no cost to count.
    mock_narrator.queue(None)
    with monologue_plugins.session("coder", min_buffer_size=1, max_buffer_size=1) as s2:
        s2.text("hello")
        s2.wait_idle(5)
    suppressed = [e for e in collect.events if e.type == "narration_suppressed"]
    assert [e.session_id for e in suppressed] == [s.id]


def test_a_turn_still_running_at_the_close_hands_its_batch_to_the_final_turn(
    monologue_plugins: PluginSandbox,
) -> None:
    # The session closes while a turn's narrator is still thinking: the buffer then holds the
    # completion alone, and the running turn's wait answer puts its batch back afterwards.
    import threading

    asked = threading.Event()
    told: list[tuple[str, int]] = []

    class SlowToWait:
        @hookimpl
        def narrate(self, events, reason):
            told.append((reason, len(events)))
            if reason == "final":
                return f"All {len(events)} done."
            asked.set()
            time.sleep(0.3)  # the close begins meanwhile
            return None  # wait

    monologue_plugins.register(SlowToWait(), "slow")
    narratives: list[Event] = []
    with monologue_plugins.session(
        "coder", narrator="slow", min_buffer_size=1, max_buffer_size=1
    ) as s:
        s.subscribe(narratives.append)
        one = s.text("one")
        assert asked.wait(5)
    assert told[-1][0] == "final", told
    (narrative,) = narratives
    assert one.id in narrative.data["covers"]
    assert s.stats.dropped == 0
