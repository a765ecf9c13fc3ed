"""An instant replay with a narrator waits only at narration turns, yet each turn covers
exactly the events up to the one that asked for it, and each narrative is shown right after
that event, whatever the threads' timing and wherever the pump pauses, and whether the
turns run on the narrator pool or in place on the pipeline thread (a narrator answering
``narrator_in_place``, ``in_place``); Ctrl-C stops at
once, dispatching nothing after it. Without a narrator, every event still runs once, in
order, on the pipeline thread; recorded narration (``--recorded``) is shown where it was
recorded."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from pytest_monologue import PluginSandbox

from monologue import hookimpl
from monologue.events import Event
from monologue.replay._replay import Driver, replay

EVERY = 3
"""The turn plugin asks for a turn at every EVERY-th tool result."""


class Shown:
    def __init__(self, stop_after: int | None = None) -> None:
        self.lines: list[str] = []
        self.stop_after = stop_after

    def event(self, event: Event) -> None:
        self.lines.append(event.data.get("tool_use_id", event.type))

    def narrative(self, narrative: Event, at: datetime) -> None:
        self.lines.append("said " + narrative.data["text"])


class Plugins:
    @hookimpl
    def load_session(self, path: Path) -> Any:
        return Source(int(path.stem))

    @hookimpl
    def should_speak(self, session: Any, event: Event) -> bool | None:
        if event.type != "tool_result":
            return None
        return int(event.data["tool_use_id"].removeprefix("t")) % EVERY == EVERY - 1

    @hookimpl
    def narrate(self, session: Any, events: list[Event], history: list[str], reason: str) -> str:
        ids = [e.data["tool_use_id"] for e in events if e.type == "tool_result"]
        return f"{len(events)} events, results {','.join(ids)}"


class Source:
    """``count`` tool calls with their results; with ``interrupt_at``, Ctrl-C after that
    many events."""

    title = None

    def __init__(self, count: int, interrupt_at: int | None = None) -> None:
        self.count = count
        self.interrupt_at = interrupt_at

    def __iter__(self) -> Iterator[Event]:
        for i in range(self.count):
            if self.interrupt_at is not None and 2 * i >= self.interrupt_at:
                raise KeyboardInterrupt
            data = {"tool_name": "Read", "tool_use_id": f"t{i}", "input": {}}
            yield Event(type="tool_call", data=data)
            yield Event(
                type="tool_result",
                data={
                    "tool_use_id": f"t{i}",
                    "tool_name": "Read",
                    "output": "ok",
                    "is_error": False,
                },
            )


def expected(count: int) -> list[str]:
    lines: list[str] = []
    pending: list[str] = []
    for i in range(count):
        lines += [f"t{i}", f"t{i}"]
        pending.append(f"t{i}")
        if i % EVERY == EVERY - 1:
            lines.append(f"said {2 * len(pending)} events, results {','.join(pending)}")
            pending = []
    return lines


class InPlace:
    """Declares the narrator's calls quick work in this process."""

    @hookimpl
    def narrator_in_place(self) -> bool:
        return True


@pytest.fixture(params=[False, True], ids=["pool", "in_place"])
def in_place(request: pytest.FixtureRequest) -> bool:
    """Whether the test's narrator declares ``narrator_in_place`` (see :func:`register`)."""
    return bool(request.param)


def register(sandbox: PluginSandbox, plugin: Any, in_place: bool) -> None:
    """``plugin`` as the narrator ``turns``, declaring ``narrator_in_place`` if asked."""
    if in_place:
        plugin = type(f"{type(plugin).__name__}InPlace", (type(plugin), InPlace), {})()
    sandbox.register(plugin, name="turns")


@pytest.fixture(params=[1, 7, 1000])
def batch(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """The pump pauses after this many events, and the reading thread kicks it on."""
    monkeypatch.setattr("monologue.replay._replay.PUMP_BATCH", request.param)
    return int(request.param)


def test_each_turn_covers_the_events_up_to_the_one_that_asked(
    monologue_plugins: PluginSandbox, batch: int, in_place: bool
) -> None:
    register(monologue_plugins, Plugins(), in_place)
    count = 60  # a multiple of EVERY: the last turn is asked for, not the final one
    for _ in range(3):
        view = Shown()
        driver = Driver(Path(f"{count}.jsonl"), view, config={"narrator": "turns"})
        summary = replay(driver)
        assert summary.problem is None
        assert view.lines[: len(expected(count))] == expected(count)
        assert summary.narratives == count // EVERY


def test_ctrl_c_closes_at_once(monologue_plugins: PluginSandbox, in_place: bool) -> None:
    class Interrupted(Plugins):
        @hookimpl
        def load_session(self, path: Path) -> Any:
            return Source(100, interrupt_at=40)

    register(monologue_plugins, Interrupted(), in_place)
    view = Shown()
    driver = Driver(Path("100.jsonl"), view, config={"narrator": "turns"})
    with pytest.raises(KeyboardInterrupt):
        replay(driver)
    assert driver.session is not None and driver.session.closed
    # Each event was dispatched as it was read: every one before Ctrl-C, none after.
    shown = [line for line in view.lines if not line.startswith("said ")]
    assert shown == [f"t{i}" for i in range(20) for _ in range(2)]


class Broken(Shown):
    """A view whose terminal goes away when it is shown the event ``kind`` of ``use_id``."""

    def __init__(self, kind: str, use_id: str) -> None:
        super().__init__()
        self.fails_on = (kind, use_id)

    def event(self, event: Event) -> None:
        if (event.type, event.data.get("tool_use_id")) == self.fails_on:
            raise BrokenPipeError("the terminal went away")
        super().event(event)


def replay_failing(sandbox: PluginSandbox, in_place: bool, view: Broken) -> None:
    register(sandbox, Plugins(), in_place)
    driver = Driver(Path("60.jsonl"), view, config={"narrator": "turns"})
    with pytest.raises(BrokenPipeError, match="terminal went away"):
        replay(driver)
    assert driver.session is not None and driver.session.closed


def test_a_view_that_fails_on_the_pipeline_thread_fails_the_replay(
    monologue_plugins: PluginSandbox, in_place: bool
) -> None:
    view = Broken("tool_call", "t10")
    replay_failing(monologue_plugins, in_place, view)
    # Everything before the failing event was shown, in order; after it, only the final
    # narration of what was dispatched (closing narrates it), no later event.
    shown = len(expected(10))
    assert view.lines[:shown] == expected(10)
    assert all(line.startswith("said ") for line in view.lines[shown:])


def test_a_view_that_fails_on_the_event_that_asked_for_a_turn_leaves_that_turn_whole(
    monologue_plugins: PluginSandbox, in_place: bool
) -> None:
    # The turn was asked for when the event was dispatched, before the view failed on it:
    # it tells its own events, not the completion closing adds after them.
    view = Broken("tool_result", "t2")
    replay_failing(monologue_plugins, in_place, view)
    assert view.lines == ["t0", "t0", "t1", "t1", "t2", "said 6 events, results t0,t1,t2"]


def test_a_replay_without_narrator_runs_each_event_once_in_order_off_the_reading_thread(
    monologue_plugins: PluginSandbox, batch: int
) -> None:
    import threading

    seen: list[tuple[str, str]] = []

    class Watching(Plugins):
        @hookimpl
        def on_event(self, session: Any, event: Event) -> None:
            if event.type in ("tool_call", "tool_result"):
                seen.append((threading.current_thread().name, event.data["tool_use_id"]))

    monologue_plugins.register(Watching(), name="turns")
    view = Shown()
    driver = Driver(Path("40.jsonl"), view, config={"narrator": "none"})
    summary = replay(driver)
    assert summary.problem is None and summary.narratives == 0
    ids = [f"t{i}" for i in range(40) for _ in range(2)]
    assert view.lines[: len(ids)] == ids
    assert [use_id for _, use_id in seen] == ids
    reader = threading.current_thread().name
    assert all(name.startswith("monologue-pipeline") for name, _ in seen), {n for n, _ in seen}
    assert reader not in {name for name, _ in seen}


def test_recorded_narration_is_shown_where_it_was_recorded(
    monologue_plugins: PluginSandbox, batch: int
) -> None:
    class Narrated(Source):
        def __iter__(self) -> Iterator[Event]:
            for event in super().__iter__():
                yield event
                use_id = event.data["tool_use_id"]
                if event.type == "tool_result" and int(use_id[1:]) % EVERY == EVERY - 1:
                    data = {"text": f"told {use_id}", "narrator": "x", "reason": "buffer"}
                    yield Event(type="narrative", data={**data, "covers": []})

    class Recorded(Plugins):
        @hookimpl
        def load_session(self, path: Path) -> Any:
            return Narrated(int(path.stem))

    monologue_plugins.register(Recorded(), name="turns")
    for _ in range(3):
        view = Shown()
        summary = replay(Driver(Path("30.jsonl"), view, recorded=True))
        assert summary.problem is None and summary.narratives == 30 // EVERY
        lines: list[str] = []
        for i in range(30):
            lines += [f"t{i}", f"t{i}"]
            if i % EVERY == EVERY - 1:
                lines.append(f"said told t{i}")
        assert view.lines[: len(lines)] == lines


def test_turns_that_keep_their_events_do_not_stall_the_replay(
    monologue_plugins: PluginSandbox, batch: int, in_place: bool
) -> None:
    # A narrator that keeps every other batch (an empty answer): no narrative wakes the
    # pump then, and the reading thread must kick it; the turns stay the same every run.
    class Keeping(Plugins):
        @hookimpl
        def narrate(
            self, session: Any, events: list[Event], history: list[str], reason: str
        ) -> str:
            ids = [e.data["tool_use_id"] for e in events if e.type == "tool_result"]
            first = int(ids[0].removeprefix("t")) if ids else 0
            if reason != "final" and first // EVERY % 2 == 0:
                return ""
            return f"{len(events)} events, results {','.join(ids)}"

    register(monologue_plugins, Keeping(), in_place)
    runs = []
    for _ in range(4):
        view = Shown()
        summary = replay(Driver(Path("60.jsonl"), view, config={"narrator": "turns"}))
        assert summary.problem is None
        runs.append(view.lines)
    assert all(lines == runs[0] for lines in runs)
    shown = [line for line in runs[0] if not line.startswith("said")]
    assert shown == [f"t{i}" for i in range(60) for _ in range(2)]
    said = [line for line in runs[0] if line.startswith("said")]
    assert said and all("t0," not in line for line in said[1:])


def test_recorded_times_stay_bounded_and_date_a_narrative_by_its_newest_event() -> None:
    from datetime import UTC, timedelta

    from monologue.replay._replay import _REMEMBERED_TIMES, SessionTimes

    times = SessionTimes()
    start = datetime(2026, 1, 1, tzinfo=UTC)
    events = [
        Event(type="text", data={"text": "x"}, ts=start + timedelta(seconds=n))
        for n in range(3 * _REMEMBERED_TIMES)
    ]
    for event in events:
        times.saw(event)
    assert len(times._by_id) <= 2 * _REMEMBERED_TIMES
    newest = events[-_REMEMBERED_TIMES:]
    covering = {"text": "t", "covers": [newest[0].id, newest[5].id]}
    narrative = Event.trusted("narrative", covering, "s", "a")
    assert times.of(narrative) == newest[5].ts
    # One covering only events let go is dated by the last event seen.
    forgotten = Event.trusted("narrative", {"text": "t", "covers": [events[0].id]}, "s", "a")
    assert times.of(forgotten) == events[-1].ts
