"""The live path against the plain readings it stands for: a fold in batches against one
event at a time, the observed conversation's slice against the slice of the whole list, the
trigger window against the newest ``window`` triggers kept as they come."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from monologue_gate import ControllerRunner, live, summaries
from monologue_gate.live import MAX_EVENTS, LiveConversation
from monologue_gate.policy import (
    TRIGGER_TYPES,
    canonical_type,
    event_trigger,
    find_trigger,
)
from monologue_gate.summaries import SummaryFold
from pytest_monologue import MockNarrator, PluginSandbox

from monologue.digest import PATH_KEYS, as_text
from monologue.events import Event

START = datetime(2025, 3, 1, 9, 0, 0, tzinfo=UTC)

TOOL_INPUTS: list[Any] = [
    {"file_path": "src/a.py"},
    {"pattern": "retry", "path": "src"},
    {"notebook_path": "nb.ipynb"},
    {"path": "b/", "file_path": "b/c.py"},  # two keys: named in PATH_KEYS' order
    {"path": 3},  # not a name
    {"command": "pytest -q"},
    {},
    None,
]


def mixed_stream(n: int, seed: int = 7) -> list[Event]:
    """``n`` events of every kind a summary or the gate looks at, files past the named few,
    failures in bursts, texts empty and not, at increasing times."""
    rng = random.Random(seed)
    events: list[Event] = []
    for i in range(n):
        roll = rng.random()
        data: dict[str, Any]
        if roll < 0.35:
            kind = "tool_call"
            tool_input = rng.choice([*TOOL_INPUTS, {"file_path": f"f{rng.randrange(40)}.py"}])
            tool = rng.choice(["Read", "Grep", "Edit", "Bash", "Task", None])
            data = {"tool_name": tool, "tool_use_id": f"t{i}", "input": tool_input}
        elif roll < 0.7:
            kind = rng.choice(["tool_result", "tool_result", "tool_result", "TOOL_RESULT"])
            failed = rng.random() < 0.2
            output: Any = rng.choice(["ok", [{"type": "text", "text": f"boom {i}"}], None])
            tool = rng.choice(["Read", "Bash", "Task", "Agent", None])
            data = {"tool_use_id": f"t{i}", "tool_name": tool, "is_error": failed}
            if output is not None:
                data["output"] = output
        elif roll < 0.78:
            kind = rng.choice(["text", "narrative"])
            data = {"text": rng.choice(["", f"said {i}", f"key sk-ant-abcdefghijklmnop{i}"])}
        elif roll < 0.82:
            kind = rng.choice(["error", "ERROR"])
            data = {"message": f"token=hunter2hunter2 failed {i}"}
        elif roll < 0.86:
            kind = "user_message"
            data = {"text": rng.choice(["go on", "[Request interrupted by user]"])}
        else:
            kind = rng.choice(["thinking", "agent_update", "agent_result", "summary_refresh"])
            data = {"text": f"note {i}"}
        event = Event.trusted(kind, data, "s1", "coder")
        event.ts = START + timedelta(seconds=i)
        events.append(event)
    return events


class OneAtATime(SummaryFold):
    """The fold as first written, one event at a time: what a batch must still say."""

    def extend(self, events: Sequence[Event]) -> None:
        for event in events:
            self.count += 1
            self.first = self.first or event
            self.last = event
            data = event.data
            if event.type == "tool_call":
                name = str(data.get("tool_name"))
                self._tools[name] = self._tools.get(name, 0) + 1
                tool_input = data.get("input") or {}
                for key in PATH_KEYS:
                    if isinstance(tool_input.get(key), str) and tool_input[key] not in self._files:
                        self._file(tool_input[key])
            elif event.type == "error" or (event.type == "tool_result" and data.get("is_error")):
                self._errors += 1
                self._last_error = as_text(data.get("message", data.get("output")))
            elif event.type in ("text", "narrative") and data.get("text"):
                self._texts.append(str(data["text"]))


def chunks(events: list[Event], rng: random.Random) -> Iterator[list[Event]]:
    start = 0
    while start < len(events):
        size = rng.choice([0, 1, 2, 7, 30, 226, 500])
        yield events[start : start + size]
        start += size


@pytest.mark.parametrize("counted", [summaries.MAX_COUNTED_FILES, 5])
def test_a_fold_in_batches_says_what_one_event_at_a_time_says(
    monkeypatch: pytest.MonkeyPatch, counted: int
) -> None:
    monkeypatch.setattr(summaries, "MAX_COUNTED_FILES", counted)
    events = mixed_stream(3000)
    expected = OneAtATime()
    expected.extend(events)
    whole, by_event, in_chunks = SummaryFold(), SummaryFold(), SummaryFold()
    whole.extend(events)
    for event in events:
        by_event.extend([event])
    for chunk in chunks(events, random.Random(3)):
        in_chunks.extend(chunk)
    text = expected.render()
    assert "Errors: " in text and "Said: " in text and " more)." in text
    assert ("(over 5 more)." in text) is (counted == 5)
    for fold in (whole, by_event, in_chunks):
        assert fold.render() == text
        assert (fold.count, fold.first, fold.last) == (3000, events[0], events[-1])
        assert len(fold._texts) <= summaries.MAX_TEXTS
        assert len(fold._files) <= summaries.MAX_FILES
        assert len(fold._more_files) <= counted


@pytest.mark.parametrize("n", [0, 1, 30, 31, 93, 94, 95, 200, 1000])
def test_the_observed_conversations_slice_is_the_slice_of_the_whole_list(
    tmp_path: Path, n: int
) -> None:
    events = mixed_stream(n)
    observed = ControllerRunner(data_dir=tmp_path, window=3)
    for event in events:
        observed.observe(event)
        # Folded in batches, yet never more than a batch beyond the newest is kept.
        assert len(observed.live._newest) < MAX_EVENTS + live._FOLD_BATCH
    assert observed.newest == events[-MAX_EVENTS:]
    whole = ControllerRunner(data_dir=tmp_path)
    assert observed.live_slice("c1") == whole.build_context_slice("c1", events)
    assert [e.data for e in observed.recorded] == [e.data for e in whole.recorded]


class KeptWindow:
    """The trigger window as first written: a trigger (or ``None``) for each of the newest
    ``size`` events; a restart applied when the window is next observed or asked."""

    def __init__(self, size: int) -> None:
        self.triggers: deque[str | None] = deque(maxlen=size)
        self.failing = False
        self.restarted = False

    def _apply(self) -> None:
        if self.restarted:
            self.restarted = False
            self.triggers.clear()

    def observe(self, event: Event) -> None:
        self._apply()
        trigger = None
        if event.type in TRIGGER_TYPES:
            trigger = event_trigger(event.type, event.data)
            if canonical_type(event.type) == "tool_result":
                failing = bool(event.data.get("is_error"))
                if failing and self.failing:
                    trigger = None
                self.failing = failing
        self.triggers.append(trigger)

    def find(self, hints: Sequence[str]) -> str | None:
        self._apply()
        return find_trigger(hints, self.triggers)


@pytest.mark.parametrize("size", [1, 2, 5, 8])
def test_the_trigger_window_finds_what_the_newest_triggers_kept_as_they_come_show(
    size: int,
) -> None:
    rng = random.Random(size)
    live, kept = LiveConversation(size), KeptWindow(size)
    for event in mixed_stream(2000, seed=size):
        armed = live.observe(event, event.type)
        kept.observe(event)
        assert armed is (kept.find(()) is not None)
        assert live.held == len(kept.triggers)
        for hints in [(), ("user_waiting",), ("started",)]:
            assert live.find(hints) == kept.find(hints)
            assert live.may_speak(hints) is (kept.find(hints) is not None)
        roll = rng.random()
        if roll < 0.1:  # the gate spoke
            live.use_up()
            kept.triggers.clear()
        elif roll < 0.2:  # a narrative was delivered
            live.restart()
            kept.restarted = True
            assert live.held == len(kept.triggers)  # applied when next observed or asked
        assert len(live._triggers) <= size


def test_hints_are_judged_but_not_kept_in_the_conversation(
    gate: PluginSandbox, mock_narrator: MockNarrator
) -> None:
    with gate.session("coder", max_buffer_size=200, idle_interval_s=0) as s:
        call = s.tool_call("Read", {"file_path": "a.py"})
        s.hint("started")
        s.tool_result(call.data["tool_use_id"], "ok")
        s.hint("task_completed")
        assert s.wait_idle(5)
        newest = s.state["gate"].runner.newest
    assert [event.type for event in newest] == ["tool_call", "tool_result"]
    assert mock_narrator.reasons[0] == "gate: hint task_completed"
