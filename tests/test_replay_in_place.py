"""Where narration turns run. An instant replay whose narrator declares its calls quick work
in this process (``narrator_in_place``) runs its turns on the session's pipeline thread and
never submits them to the narrator pool; a narrator that does not declare it, or declares it
false, or fails to answer, keeps the pool and its ``narrate_timeout_s``; a paced replay and a
live session keep the pool whatever the narrator declares. Either way a secret in what the
narrator says is redacted before any sink or listener sees it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from pytest_monologue import PluginSandbox

from monologue import hookimpl
from monologue.events import Event
from monologue.pipeline import _worker
from monologue.replay._replay import Driver, replay

SECRET = "my password is Hq01vine"
"""A form the redaction corpus holds; its marker must reach no sink."""


class Source:
    """``count`` tool calls with their results."""

    title = None

    def __init__(self, count: int) -> None:
        self.count = count

    def __iter__(self) -> Iterator[Event]:
        for i in range(self.count):
            data = {"tool_name": "Read", "tool_use_id": f"t{i}", "input": {}}
            yield Event(type="tool_call", data=data)
            result = {"tool_use_id": f"t{i}", "tool_name": "Read", "output": "ok"}
            yield Event(type="tool_result", data={**result, "is_error": False})


class Narrator:
    """Speaks at every second tool result; notes the thread and reason of each call."""

    def __init__(self, text: str = "I read {n} files.", declares: Any = None) -> None:
        self.text = text
        self.declares = declares
        self.calls: list[tuple[str, str]] = []

    @hookimpl
    def load_session(self, path: Path) -> Any:
        return Source(int(path.stem))

    @hookimpl
    def should_speak(self, event: Event) -> bool | None:
        if event.type != "tool_result":
            return None
        return int(event.data["tool_use_id"].removeprefix("t")) % 2 == 1

    @hookimpl
    def narrate(self, events: list[Event], reason: str) -> str:
        self.calls.append((threading.current_thread().name, reason))
        return self.text.format(n=sum(e.type == "tool_result" for e in events))


class Declaring(Narrator):
    @hookimpl
    def narrator_in_place(self) -> Any:
        if isinstance(self.declares, Exception):
            raise self.declares
        return self.declares


class View:
    def __init__(self) -> None:
        self.narratives: list[Event] = []

    def event(self, event: Event) -> None:
        pass

    def narrative(self, narrative: Event, at: datetime) -> None:
        self.narratives.append(narrative)


class Sink:
    """What a recorder sees: every event ``on_event`` is given."""

    def __init__(self) -> None:
        self.narratives: list[Event] = []

    @hookimpl
    def on_event(self, event: Event) -> None:
        if event.type == "narrative":
            self.narratives.append(event)


def counting_pool(calls: list[str]) -> Callable[[], Any]:
    """A stand-in for the worker's ``narrator_pool`` that notes in ``calls`` the reason of
    every turn submitted to the pool, then submits it."""
    real = _worker.narrator_pool

    class Counting:
        def submit(self, fn: Any, *args: Any) -> Any:
            calls.append(args[-1])
            return real().submit(fn, *args)

        def abandon(self, future: Any) -> None:
            real().abandon(future)

    return Counting


@pytest.fixture
def pool_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The reason of every turn submitted to the narrator pool."""
    calls: list[str] = []
    monkeypatch.setattr(_worker, "narrator_pool", counting_pool(calls))
    return calls


def run(sandbox: PluginSandbox, narrator: Narrator, count: int = 20, **config: Any) -> View:
    sandbox.register(narrator, name="teller")
    view = View()
    speed = config.pop("speed", 0.0)
    driver = Driver(
        Path(f"{count}.jsonl"), view, speed=speed, config={"narrator": "teller", **config}
    )
    summary = replay(driver)
    assert summary.problem is None
    return view


def test_an_instant_replay_runs_a_declaring_narrators_turns_on_its_pipeline_thread(
    monologue_plugins: PluginSandbox, pool_calls: list[str]
) -> None:
    narrator = Declaring(declares=True)
    view = run(monologue_plugins, narrator)
    # Ten turns, each right after the result that asked; closing has nothing left to tell.
    assert [n.data["text"] for n in view.narratives] == ["I read 2 files."] * 10
    assert len(narrator.calls) == 10
    assert all(thread.startswith("monologue-pipeline-") for thread, _ in narrator.calls)
    assert pool_calls == []


def test_the_final_turn_of_an_in_place_replay_stays_on_the_pool(
    monologue_plugins: PluginSandbox, pool_calls: list[str]
) -> None:
    narrator = Declaring(declares=True)
    view = run(monologue_plugins, narrator, count=21)  # the last result asks for no turn
    assert [reason for _, reason in narrator.calls] == ["buffer"] * 10 + ["final"]
    assert narrator.calls[-1][0].startswith("monologue-narrator")
    assert pool_calls == ["final"]
    assert view.narratives[-1].data["reason"] == "final"


@pytest.mark.parametrize("declares", [None, False, "yes", RuntimeError("no idea")], ids=repr)
def test_a_narrator_that_does_not_declare_it_keeps_the_pool(
    monologue_plugins: PluginSandbox, pool_calls: list[str], declares: Any
) -> None:
    narrator = Declaring(declares=declares)
    view = run(monologue_plugins, narrator)
    assert len(view.narratives) == 10
    assert all(thread.startswith("monologue-narrator") for thread, _ in narrator.calls)
    assert pool_calls == ["buffer"] * 10


def test_a_narrator_on_the_pool_keeps_its_timeout_in_an_instant_replay(
    monologue_plugins: PluginSandbox, pool_calls: list[str]
) -> None:
    release = threading.Event()

    class Stuck(Narrator):
        @hookimpl
        def narrate(self, events: list[Event], reason: str) -> str:
            text = super().narrate(events, reason)
            if len(self.calls) == 1:
                release.wait(5)  # past narrate_timeout_s: the turn is abandoned
            return text

    narrator = Stuck()
    try:
        view = run(monologue_plugins, narrator, narrate_timeout_s=0.2)
    finally:
        release.set()
    # The first turn timed out (its events kept for the next one); the replay went on.
    assert pool_calls[:2] == ["buffer", "buffer"]
    assert [n.data["text"] for n in view.narratives] == ["I read 4 files."] + [
        "I read 2 files."
    ] * 8


def test_a_paced_replay_keeps_the_pool(
    monologue_plugins: PluginSandbox, pool_calls: list[str]
) -> None:
    narrator = Declaring(declares=True)
    view = run(monologue_plugins, narrator, count=4, speed=1000.0)
    assert view.narratives
    assert all(thread.startswith("monologue-narrator") for thread, _ in narrator.calls)


def test_a_live_session_keeps_the_pool(
    monologue_plugins: PluginSandbox, pool_calls: list[str]
) -> None:
    narrator = Declaring(declares=True)
    monologue_plugins.register(narrator, name="teller")
    heard: list[Event] = []
    with monologue_plugins.session(narrator="teller", on_narrative=heard.append) as s:
        for i in range(4):
            call = s.tool_call("Read", {}, tool_use_id=f"t{i}")
            s.tool_result(call.data["tool_use_id"], "ok")
            assert s.wait_idle(5)
    assert len(heard) == 2
    assert all(thread.startswith("monologue-narrator") for thread, _ in narrator.calls)
    assert pool_calls == ["buffer", "buffer"]


@pytest.mark.parametrize("declares", [True, None], ids=["in_place", "pool"])
def test_a_secret_in_the_narrators_text_is_redacted_for_sinks_and_listeners(
    monologue_plugins: PluginSandbox, declares: Any
) -> None:
    sink = monologue_plugins.register(Sink(), name="sink")
    view = run(
        monologue_plugins, Declaring(text=f"I read {{n}} files; {SECRET}.", declares=declares)
    )
    assert len(view.narratives) == len(sink.narratives) == 10
    for narrative in (*view.narratives, *sink.narratives):
        assert "Hq01vine" not in narrative.data["text"]
        assert narrative.data["text"].startswith("I read 2 files; my password is [REDACTED]")
    assert all(len(narrative.data["covers"]) == 4 for narrative in view.narratives)
