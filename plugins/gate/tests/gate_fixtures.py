"""Fixtures (loaded with `-p gate_fixtures`): the gate on a fake clock, events collected."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import entry_points

import pytest
from monologue_gate import Watchdog, use_watchdog
from pytest_monologue import PluginSandbox

from monologue import hookimpl
from monologue.events import Event


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self, start: float = 1000.0) -> None:
        self.t = start

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


class CollectEvents:
    """Every event of every session, in order."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    @hookimpl
    def on_event(self, event: Event) -> None:
        self.events.append(event)

    def of_type(self, kind: str) -> list[Event]:
        return [event for event in self.events if event.type == kind]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def watchdog(clock: FakeClock) -> Iterator[Watchdog]:
    """The shared watchdog replaced by one on the fake clock, checked by hand (no thread)."""
    with use_watchdog(Watchdog(clock, threaded=False)) as dog:
        yield dog


@pytest.fixture
def gate(monologue_plugins: PluginSandbox, watchdog: Watchdog) -> PluginSandbox:
    monologue_plugins.load("gate")
    return monologue_plugins


@pytest.fixture
def collect(monologue_plugins: PluginSandbox) -> CollectEvents:
    return monologue_plugins.register(CollectEvents(), "collect")  # type: ignore[no-any-return]


def installed(name: str) -> bool:
    return any(ep.name == name for ep in entry_points(group="monologue"))
