"""A replay's closing completion says how the run ended: as its source said, cut off when
the source could not be read to its end, and with the count of unreadable lines skipped;
the source's own title names the session."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from pytest_monologue import PluginSandbox

from monologue import hookimpl
from monologue.errors import RecordingError
from monologue.events import Event
from monologue.replay._replay import Driver, replay


class Quiet:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def event(self, event: Event) -> None:
        self.events.append(event)

    def narrative(self, narrative: Event, at: datetime) -> None:
        pass


class Source:
    """A reader's events, with a title, that may break after them."""

    title = "read-app"
    skipped = 2

    def __init__(self, events: list[Event], broken: bool) -> None:
        self.events = events
        self.broken = broken

    def __iter__(self) -> Iterator[Event]:
        yield from self.events
        if self.broken:
            raise RecordingError("t.jsonl", 3, "invalid JSON")


def closing(plugins: PluginSandbox, events: list[Event], broken: bool = False) -> Driver:
    class Reader:
        @hookimpl
        def load_session(self, path: Path) -> Any:
            return Source(events, broken)

    plugins.register(Reader(), name="reader")
    driver = Driver(Path("t.jsonl"), Quiet(), config={"narrator": "none"})
    replay(driver)
    return driver


@pytest.mark.parametrize(
    ("broken", "ending"), [(False, "interrupted"), (True, "cut_off")], ids=["read", "broken"]
)
def test_the_closing_completion_says_how_the_run_ended(
    monologue_plugins: PluginSandbox, broken: bool, ending: str
) -> None:
    seen: list[Event] = []

    class Watch:
        @hookimpl
        def on_complete(self, session: Any, event: Event) -> None:
            seen.append(event)

    monologue_plugins.register(Watch(), name="watch")
    events = [
        Event(type="user_message", data={"text": "fix it", "origin": "user"}),
        Event(type="completion", data={"result": None, "is_error": False, "ending": "interrupted"}),
    ]
    driver = closing(monologue_plugins, events, broken)
    assert driver.session is not None and driver.session.meta["title"] == "read-app"
    (done,) = seen
    assert done.data["ending"] == ending
    assert done.data["skipped_lines"] == 2
