"""An isolated plugin manager and a scripted narrator, for testing monologue and its plugins.

``monologue_plugins`` gives an isolated plugin manager that ignores whatever is installed,
with no ``MONOLOGUE_*`` variables and no config file in effect; everything registered in it
disappears after the test. ``mock_narrator`` adds a scripted narrator to it and selects it.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from monologue import hookimpl
from monologue.plugins import ENTRY_POINT_GROUP

if TYPE_CHECKING:
    from click.testing import Result

    from monologue import Event, Narration, Session
    from monologue.plugins import MonologuePluginManager
    from monologue.plugins._hooks import Hooks

__all__ = [
    "WAIT",
    "Hang",
    "MockNarrator",
    "NarrateCall",
    "PluginSandbox",
    "Replayed",
    "mock_narrator",
    "monologue_cli",
    "monologue_plugins",
]

WAIT = "..."
"""A mock answer meaning *keep buffering*."""

_UNSCRIPTED = object()


@dataclass(frozen=True)
class Hang:
    """A mock answer: block for ``seconds`` (past the timeout, typically), then wait; the
    ``mock_narrator`` fixture ends the block when its test ends."""

    seconds: float


class PluginSandbox:
    """An isolated plugin manager, active for the duration of one test."""

    def __init__(self, pm: MonologuePluginManager) -> None:
        self.pm = pm

    @property
    def hooks(self) -> Hooks:
        return self.pm.hooks

    def register(self, plugin: Any, name: str | None = None) -> Any:
        """Register a throwaway plugin (a module, class or instance); returns it."""
        self.pm.register(plugin, name)
        return plugin

    def load(self, *names: str) -> None:
        """Load installed plugins by entry-point name, the way a real process loads them
        (same loader, same order); a plugin that fails to import fails the test."""
        available = {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)}
        missing = [name for name in names if name not in available]
        if missing:
            raise LookupError(
                f"no installed monologue plugin {', '.join(map(repr, missing))} "
                f"(installed: {sorted(available)})"
            )
        self.pm.load_entrypoints(
            {"MONOLOGUE_LOAD_PLUGINS": ",".join(names), "MONOLOGUE_STRICT_PLUGINS": "1"}
        )

    def session(self, agent: str = "test-agent", **config: Any) -> Session:
        """A session bound to this sandbox's plugins."""
        from monologue import Session

        return Session(agent, pm=self.pm, **config)

    def replay(
        self, source: Iterable[Event] | Path, agent: str = "replayed", **config: Any
    ) -> Replayed:
        """Feed ``source`` (events, or a file read by whichever reader recognises it: the
        core for a monologue recording, else this sandbox's readers) to a fresh session as
        an instant ``monologue replay`` does (waiting for each narration turn; the session's
        close completes it): what was read, dispatched and narrated, to check what each
        narrative covers."""
        from monologue.recording import open_session
        from monologue.replay._replay import NARRATION_TYPES

        replayed = Replayed()
        if isinstance(source, Path):
            events, replayed.reader = open_session(source, self.hooks)
        else:
            events = source
        with self.session(agent, **config) as session:
            session.subscribe(replayed.narratives.append)
            for event in events:
                # A recording's own narration is left out, as monologue replay leaves it,
                # for the narrator in effect to narrate anew.
                if event.type != "completion" and event.type not in NARRATION_TYPES:
                    replayed.events.append(session.dispatch(event))
                    session.wait_idle(30)
        return replayed


@dataclass
class Replayed:
    """The events a :meth:`PluginSandbox.replay` dispatched and the narratives delivered."""

    events: list[Event] = field(default_factory=list)
    narratives: list[Event] = field(default_factory=list)
    reader: str | None = None
    """The plugin that read the file, when a file was replayed."""

    def of_type(self, kind: str) -> list[Event]:
        return [event for event in self.events if event.type == kind]

    def narrative_of(self, event: Event) -> str | None:
        """The text of the narrative that covers ``event`` (``None``: none does), by its
        ``covers`` ids or, for a large digest, its ``covers_range``."""
        for narrative in self.narratives:
            if event.id in narrative.data["covers"]:
                return str(narrative.data["text"])
        ranged = [n for n in self.narratives if len(n.data.get("covers_range") or ()) == 2]
        if not ranged:
            return None
        where = {dispatched.id: n for n, dispatched in enumerate(self.events)}
        at = where.get(event.id, -1)
        for narrative in ranged:
            first, last = (where.get(end, -1) for end in narrative.data["covers_range"])
            if 0 <= first <= at <= last:
                return str(narrative.data["text"])
        return None


@pytest.fixture
def monologue_plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[PluginSandbox]:
    """An isolated, empty plugin manager made active for this test."""
    import os

    from monologue.plugins import MonologuePluginManager, use_plugin_manager

    for name in list(os.environ):
        if name.startswith("MONOLOGUE_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("MONOLOGUE_NO_CONFIG_FILE", "1")
    with use_plugin_manager(MonologuePluginManager()) as pm:
        yield PluginSandbox(pm)


@dataclass
class NarrateCall:
    """What one ``narrate`` call received."""

    events: list[Event]
    history: list[str]
    reason: str
    first: bool
    session_id: str
    thread: str
    at: float = field(default_factory=time.monotonic)

    @property
    def types(self) -> list[str]:
        return [event.type for event in self.events]


class MockNarrator:
    """A scripted narrator plugin.

    Answers are taken in order from :meth:`queue`; when the queue is empty the ``default``
    answer is used (by default ``"Narration N (K events)."``). An answer may be text, a
    :class:`~monologue.Narration`, ``None`` or :data:`WAIT` (keep buffering), an exception
    (instance or class: raised), or :class:`Hang` (block, then wait). ``latency`` seconds
    are slept before every answer.
    """

    def __init__(self) -> None:
        self.calls: list[NarrateCall] = []
        self.latency = 0.0
        self.default: str | None = None
        self._answers: deque[Any] = deque()
        self._cond = threading.Condition()
        self._released = threading.Event()

    def release(self) -> None:
        """End every :class:`Hang` now and to come: a call still hanging after its test
        would count as stuck against this narrator's name in the tests after it (and, past
        ``narrator_stuck_limit``, pause it)."""
        self._released.set()

    def queue(self, *answers: Any) -> MockNarrator:
        self._answers.extend(answers)
        return self

    @hookimpl
    def narrate(
        self, session: Session, events: list[Event], history: list[str], reason: str
    ) -> str | Narration | None:
        call = NarrateCall(
            events=list(events),
            history=list(history),
            reason=reason,
            first=session.is_first,
            session_id=session.id,
            thread=threading.current_thread().name,
        )
        with self._cond:
            self.calls.append(call)
            number = len(self.calls)
            answer = self._answers.popleft() if self._answers else _UNSCRIPTED
            self._cond.notify_all()
        if self.latency:
            time.sleep(self.latency)
        if isinstance(answer, Hang):
            self._released.wait(answer.seconds)
            return None
        if isinstance(answer, BaseException) or (
            isinstance(answer, type) and issubclass(answer, BaseException)
        ):
            raise answer
        if answer is _UNSCRIPTED:
            return self.default or f"Narration {number} ({len(events)} events)."
        return answer  # type: ignore[return-value]

    def wait_for_calls(self, count: int, timeout: float = 5.0) -> bool:
        """Block until at least ``count`` calls were made (or ``timeout`` passed)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self.calls) < count:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
        return True

    @property
    def reasons(self) -> list[str]:
        return [call.reason for call in self.calls]


@pytest.fixture
def mock_narrator(
    monologue_plugins: PluginSandbox, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MockNarrator]:
    """A :class:`MockNarrator` registered as ``mock`` and selected for every session; its
    hanging calls end with the test."""
    narrator = MockNarrator()
    monologue_plugins.register(narrator, "mock")
    monkeypatch.setenv("MONOLOGUE_NARRATOR", "mock")
    yield narrator
    narrator.release()


@pytest.fixture
def monologue_cli(monologue_plugins: PluginSandbox) -> Iterator[Callable[..., Result]]:
    """``monologue_cli("replay", path)`` runs the ``monologue`` command in-process against
    this test's plugins and returns click's ``Result`` (``stdout`` and ``stderr`` apart);
    exceptions propagate. The logging the command sets up is undone after the test."""
    import logging

    from click.testing import CliRunner

    from monologue.cli import cli

    logger = logging.getLogger("monologue")
    saved = (logger.handlers[:], logger.level, logger.propagate)

    def run(*args: str) -> Result:
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)

    yield run
    logger.handlers[:], logger.level, logger.propagate = saved
