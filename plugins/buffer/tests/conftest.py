"""The buffer tests' driver: an agent whose events carry controlled timestamps."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pytest_monologue import MockNarrator, PluginSandbox

from monologue import Session

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


class Agent:
    """Drives a session like a live agent whose narrator keeps up: after every event, the
    narration it asked for has finished. Events carry timestamps ``seconds`` after ``T0``."""

    def __init__(self, session: Session, narrator: MockNarrator) -> None:
        self.session = session
        self.narrator = narrator
        self.clock = 0.0
        self._ids = 0

    def _emit(self, kind: str, data: dict[str, Any], at: float | None) -> None:
        if at is not None:
            self.clock = at
        self.session.emit(kind, data, ts=T0 + timedelta(seconds=self.clock))
        assert self.session.wait_idle(5), "narration did not finish"

    def call(self, tool: str = "Read", at: float | None = None, **tool_input: Any) -> str:
        self._ids += 1
        use_id = f"toolu_{self._ids}"
        self._emit("tool_call", {"tool_name": tool, "tool_use_id": use_id, "input": tool_input}, at)
        return use_id

    def result(
        self, use_id: str, output: str = "ok", is_error: bool = False, at: float | None = None
    ) -> None:
        self._emit(
            "tool_result", {"tool_use_id": use_id, "output": output, "is_error": is_error}, at
        )

    def step(self, tool: str = "Read", at: float | None = None) -> None:
        """A tool call and its successful result."""
        self.result(self.call(tool, at=at))

    def text(self, text: str = "Let me look.", at: float | None = None) -> None:
        self._emit("text", {"text": text}, at)

    @property
    def asked(self) -> int:
        return len(self.narrator.calls)


@pytest.fixture
def start(
    monologue_plugins: PluginSandbox, mock_narrator: MockNarrator
) -> Iterator[Callable[..., Agent]]:
    """``agent(**config)``: an :class:`Agent` on a started session (closed after the test)."""
    monologue_plugins.load("buffer")
    sessions: list[Session] = []

    def start(**config: Any) -> Agent:
        session = monologue_plugins.session("coder", **config).start()
        sessions.append(session)
        return Agent(session, mock_narrator)

    yield start
    for session in sessions:
        session.close()


Start = Callable[..., Agent]
