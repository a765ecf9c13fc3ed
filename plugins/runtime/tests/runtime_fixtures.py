"""Fixtures (loaded with `-p runtime_fixtures`) and helpers of the runtime's tests.

Not a conftest.py: one module name per plugin keeps `mypy plugins` free of duplicates.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from monologue_runtime import AgentRuntime, PostgresTaskStore, TaskGraphStore, TaskStore
from pytest_monologue import PluginSandbox
from pytest_monologue.postgres import ThrowawayPostgres

from monologue import Session, hookimpl
from monologue.events import Event

RuntimeFactory = Callable[..., AgentRuntime]

T0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)


def only_this_plugin_env(tmp_path: Path) -> dict[str, str]:
    """Environment for a subprocess: only this plugin loaded, every folder under tmp_path."""
    return {
        **os.environ,
        "MONOLOGUE_LOAD_PLUGINS": "monologue-runtime",
        "MONOLOGUE_NO_CONFIG_FILE": "1",
        "MONOLOGUE_DATA_DIR": str(tmp_path / "data"),
        "XDG_DATA_HOME": str(tmp_path / "xdg"),
        "HOME": str(tmp_path / "home"),
    }


def at(seconds: float) -> datetime:
    """A point in time ``seconds`` after ``T0`` (for injected clocks)."""
    return T0 + timedelta(seconds=seconds)


class Observer:
    """A plugin that keeps every event the pipeline broadcasts."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.sessions: list[Session] = []

    @hookimpl
    def on_session_start(self, session: Session) -> None:
        self.sessions.append(session)

    @hookimpl
    def on_event(self, session: Session, event: Event) -> None:
        self.events.append(event)

    def of_type(self, *types: str) -> list[Event]:
        for session in self.sessions:  # hooks run on each session's pipeline thread
            session.drain(5)
        return [event for event in self.events if event.type in types]


@pytest.fixture
def observer(monologue_plugins: PluginSandbox) -> Observer:
    return monologue_plugins.register(Observer(), "observer")  # type: ignore[no-any-return]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture(scope="session")
def postgres() -> Iterator[ThrowawayPostgres]:
    """One throwaway PostgreSQL server for the whole run (each test gets its own schema)."""
    with ThrowawayPostgres() as server:
        yield server


@pytest.fixture(params=["file", "postgresql"])
def store_setting(request: pytest.FixtureRequest, data_dir: Path) -> str:
    """A ``runtime_store`` value: ``file`` (in ``data_dir``), or a URL to a fresh schema."""
    if request.param == "file":
        return "file"
    server: ThrowawayPostgres = request.getfixturevalue("postgres")
    return server.schema_url()


@pytest.fixture
def store(store_setting: str, data_dir: Path) -> Iterator[TaskStore]:
    """Each store in turn: every test using it runs once on files, once on PostgreSQL."""
    opened: TaskStore = (
        TaskGraphStore(data_dir) if store_setting == "file" else PostgresTaskStore(store_setting)
    )
    yield opened
    opened.close()


@pytest.fixture
def file_store(data_dir: Path) -> TaskGraphStore:
    return TaskGraphStore(data_dir)


@pytest.fixture
def session(monologue_plugins: PluginSandbox, observer: Observer) -> Iterator[Session]:
    with monologue_plugins.session("runtime-tests", narrator="none") as s:
        yield s


@pytest.fixture
def make_runtime(store_setting: str, data_dir: Path, session: Session) -> Iterator[RuntimeFactory]:
    """Runtimes on the test's store (each opens its own, as separate agents would),
    recording into the test's session."""
    made: list[AgentRuntime] = []

    def make(agent_id: str = "agent-1", agent_type: str = "build", **kwargs: Any) -> AgentRuntime:
        kwargs.setdefault("session", session)
        kwargs.setdefault("store", store_setting)
        runtime = AgentRuntime(agent_id, agent_type, data_dir=data_dir, **kwargs)
        made.append(runtime)
        return runtime

    yield make
    for runtime in made:
        runtime.close()
