"""The per-session gate: ``should_speak`` on the session's pipeline thread, a few cheap steps
per event.

Every event goes through the session's :class:`~monologue_gate.controller.ControllerRunner`
(the one decision path): it keeps the triggers of the last ``gate_window`` events and the
conversation so far, and says whether something calls for speech. A trigger is consumed
when the gate speaks, so one failure makes one narration and not one per following event.
The narration reason is ``gate: `` and the trigger (``gate: tool failed: Bash``).

Once the gate has spoken, a narrator may ask for its context (the ``narrator_context`` hook,
:meth:`GateState.context`): a slice of the newest events verbatim and a rolling summary of the
older ones. It is built then, on the narrator's thread, at most once per narration (the
summary stored at most that often, the newest few kept per session); ``summary_refresh`` is
emitted when that summary changes, never for an identical one.

Held narrations are judged, and in ``strict`` and ``llm`` modes logged as
``narration_suppressed`` events, not on every held event but at checkpoints: once when the
held batch reaches ``min_buffer_size`` (the smallest batch the buffer policy would have
narrated), then every ``max_buffer_size`` more (where the core itself would have forced a
``max_buffer`` narration). In ``llm`` mode the controller is asked at each checkpoint; its
answer may speak, else the suppression carries its notes or why there was no valid answer.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from .controller import ControllerRunner
from .policy import REASON_PREFIX, WAITING_HINT, hold_reason

if TYPE_CHECKING:
    from monologue import Session
    from monologue.events import Event

    from .settings import GateSettings
    from .watchdog import Watch, Watchdog

log = logging.getLogger("monologue.gate")


class GateState:
    """What the gate knows about one session (kept in ``session.state["gate"]``)."""

    __slots__ = (
        "_built_for",
        "_context",
        "_context_lock",
        "_narrations",
        "_session_id",
        "first_report",
        "held",
        "mode",
        "report_every",
        "runner",
        "settings",
        "slice_failed",
        "spoken",
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
        self.mode = settings.mode  # settings are frozen; a field read costs a pydantic trip
        self.runner = ControllerRunner(session, window=settings.window)
        self.held = 0
        self.first_report = session.config.min_buffer_size
        self.report_every = session.config.max_buffer_size
        self.spoken = False
        """Whether the gate has spoken yet: only then does it offer a narrator context."""
        self._session_id = session.id
        self._context: str | None = None
        self._context_lock = threading.Lock()
        self._narrations = 0
        self._built_for = -1  # the narration count the cached context was built for
        self.slice_failed = False
        self.watchdog = watchdog
        self.watch: Watch | None = None
        if watchdog is not None and settings.idle_interval_s > 0 and session.narrator:
            self.watch = watchdog.watch(session, settings.idle_interval_s)

    def should_speak(self, session: Session, event: Event) -> bool | str | None:
        """``"gate: <trigger>"`` to speak now, ``False`` to hold, ``None`` for no opinion."""
        if self.watch is not None:
            self.watch.activity = True
        # Each hint is judged as it arrives (session.hints holds them all until a narrative);
        # triggers are consumed when the gate speaks, so older hints need no second look.
        runner = self.runner
        mode = self.mode
        kind = event.type
        hints: tuple[str, ...] = ()  # no list to build for the events that are no hint
        if kind == "hint":
            hints = (event.data["name"],)
            if mode == "assist" and not runner.may_speak(hints):
                return None
        # runner.observe(), less a call, and answering may_speak() at once.
        elif not runner.live.observe(event, kind) and mode == "assist":
            return None  # the common case, once per event: nothing to decide
        decision = runner.live_decision(hints)
        if decision["speak_now"]:
            if WAITING_HINT in hints and not session.pending:
                # Nothing new to narrate, yet someone waits: an idle turn says what is running.
                return "idle"
            return self._speak(session, decision["actions"][0]["reason"])
        if mode == "assist":
            return None
        if kind == "hint" or not self._checkpoint():
            return False
        if mode == "llm":
            from .llm import ask_controller

            decision = ask_controller(
                session, self.runner, session.hints, self.settings.controller_timeout_s
            )
            if decision["speak_now"]:
                actions = decision["actions"]
                why = actions[0]["reason"] if actions else decision["notes"]
                return self._speak(session, f"controller: {why or 'speak_now'}")
            reason = f"llm: {decision['notes'] or 'the controller held'}"
        else:
            reason = f"strict: {hold_reason(session.hints, self.runner.held_window)}"
        session.emit(
            "narration_suppressed",
            {"reason": f"{reason} ({self._held_since(session)})", "gate": mode, "held": self.held},
        )
        return False

    def _checkpoint(self) -> bool:
        """Count one more held event; true when the held batch reaches a checkpoint."""
        self.held += 1
        held, first = self.held, self.first_report
        return held == first or (held > first and (held - first) % self.report_every == 0)

    def _held_since(self, session: Session) -> str:
        held = self.held
        since = "the session started" if session.is_first else "the last narration"
        return f"{held} event{'' if held == 1 else 's'} held since {since}"

    def _speak(self, session: Session, trigger: str) -> str:
        self.held = 0
        self.spoken = True
        return REASON_PREFIX + trigger

    def context(self) -> str | None:
        """The narrator's context slice (newest events, then the summary of older ones),
        built when a narrator first asks after a narration, on its thread; ``None`` before
        the gate has spoken or when the summary could not be stored."""
        if not self.spoken:
            return None
        with self._context_lock:
            if self._built_for != self._narrations:
                self._built_for = self._narrations
                self._context = self._build_context()
            return self._context

    def _build_context(self) -> str | None:
        try:
            return self.runner.live_slice(self._session_id)
        except (OSError, ValueError) as exc:
            # The summary could not be stored: the narration matters more than its slice.
            if not self.slice_failed:
                self.slice_failed = True
                log.warning("gate: no context slice for session %s: %s", self._session_id, exc)
            return None

    def narrated(self) -> None:
        """A narrative was delivered: the held batch and the recent window start again, and
        the next narrator to ask gets a fresh context."""
        self.held = 0
        self._narrations += 1
        self.runner.narrated()
        if self.watch is not None and self.watchdog is not None:
            self.watchdog.narrated(self.watch)

    def close(self) -> None:
        if self.watch is not None and self.watchdog is not None:
            self.watchdog.unwatch(self.watch)
            self.watch = None
