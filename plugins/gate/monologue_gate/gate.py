"""The per-session gate: ``should_speak`` on the agent's path, so a few cheap steps per event.

The gate keeps the types of the last ``gate_window`` events in a small deque and judges each
hint as it arrives; a trigger (a speaking hint, an ``error``, an ``agent_result``) is
consumed when the gate speaks, so one error makes one narration and not one per following
event.

In ``strict`` mode a held narration is logged as a ``narration_suppressed`` event, but not
every held event: once when the held batch reaches ``min_buffer_size`` (the smallest batch
the buffer policy would have narrated), then every ``max_buffer_size`` more (where the core
itself would have forced a ``max_buffer`` narration). The log says why the narrator was
silent without growing with every event.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from .policy import WAITING_HINT, find_trigger, hold_reason

if TYPE_CHECKING:
    from monologue.events import Event
    from monologue.sessions import Session

    from .settings import GateSettings
    from .watchdog import Watch, Watchdog


class GateState:
    """What the gate knows about one session (kept in ``session.state["gate"]``)."""

    __slots__ = (
        "first_report",
        "held",
        "recent",
        "report_every",
        "settings",
        "strict",
        "watch",
        "watchdog",
    )

    def __init__(
        self,
        session: Session,
        settings: GateSettings,
        watchdog: Watchdog | None = None,
    ) -> None:
        self.settings = settings
        self.strict = settings.mode == "strict"
        self.recent: deque[str] = deque(maxlen=settings.window)
        self.held = 0
        self.first_report = session.config.min_buffer_size
        self.report_every = session.config.max_buffer_size
        self.watchdog = watchdog
        self.watch: Watch | None = None
        if watchdog is not None and settings.idle_interval_s > 0 and session.narrator:
            self.watch = watchdog.watch(session, settings.idle_interval_s)

    def should_speak(self, session: Session, event: Event) -> bool | str | None:
        """``"gate"`` to speak now, ``False`` to hold (strict), ``None`` for no opinion."""
        if self.watch is not None:
            self.watch.activity = True
        kind = event.type
        # Each hint is judged as it arrives (session.hints holds them all until a narrative);
        # triggers are consumed when the gate speaks, so older hints need no second look.
        new_hints: list[str] = []
        if kind == "hint":
            new_hints.append(event.data["name"])
        else:
            self.recent.append(kind)
        trigger = find_trigger(new_hints, self.recent)
        if trigger is not None:
            self.recent.clear()
            self.held = 0
            if WAITING_HINT in new_hints and not session.pending:
                # Nothing new to narrate, yet someone waits: an idle turn says what is running.
                return "idle"
            return "gate"
        if not self.strict:
            return None
        if kind != "hint":
            self.held += 1
            held = self.held
            if held == self.first_report or (
                held > self.first_report and (held - self.first_report) % self.report_every == 0
            ):
                session.emit(
                    "narration_suppressed",
                    {"reason": self.suppression_reason(session), "gate": "strict", "held": held},
                )
        return False

    def suppression_reason(self, session: Session) -> str:
        held = self.held
        since = "the session started" if session.is_first else "the last narration"
        return (
            f"strict: {hold_reason(session.hints, len(self.recent))} "
            f"({held} event{'' if held == 1 else 's'} held since {since})"
        )

    def narrated(self) -> None:
        """A narrative was delivered: the held batch and the recent window start again."""
        self.held = 0
        self.recent.clear()
        if self.watch is not None and self.watchdog is not None:
            self.watchdog.narrated(self.watch)

    def close(self) -> None:
        if self.watch is not None and self.watchdog is not None:
            self.watchdog.unwatch(self.watch)
            self.watch = None
