"""Throwaway plugins the core tests register in an isolated plugin manager."""

from __future__ import annotations

from monologue import hookimpl


class CollectEvents:
    """An observer plugin that keeps every event it sees, per hook."""

    def __init__(self) -> None:
        self.events: list = []
        self.completed: list = []
        self.narratives: list = []
        self.started: list = []

    @hookimpl
    def on_session_start(self, session):
        self.started.append(session.id)

    @hookimpl
    def on_event(self, session, event):
        self.events.append(event)

    @hookimpl
    def on_complete(self, session, event):
        self.completed.append((session.id, event, session.stats.narratives))

    @hookimpl
    def on_narrative(self, session, narrative):
        self.narratives.append(narrative)

    def types(self, session_id: str | None = None) -> list[str]:
        return [e.type for e in self.events if session_id is None or e.session_id == session_id]


class SpeakAt:
    """A buffer policy for core tests: speak once ``n`` events are pending."""

    def __init__(self, n: int) -> None:
        self.n = n

    @hookimpl
    def should_speak(self, session, event):
        return True if len(session.pending) >= self.n else None
