"""The default answer to ``should_speak``: when a buffer is worth narrating.

In order, for each narratable event:

1. ``max_buffer_size`` events wait: speak (the core names the reason ``max_buffer``).
2. The event is an error (a failed tool result, an ``error`` event): speak at once, whatever
   the buffer size or the throttle; the watcher should hear about failures first. Once an
   error has been announced, further errors wait like other events until the next ordinary
   narration, so that a string of failures does not become a string of narrations.
3. Fewer than ``min_buffer_size`` events wait: hold.
4. Nothing has been narrated yet: speak, to introduce the work early (``buffer_intro``).
5. Less than ``throttle_ms`` passed since the last narration: hold.
6. ``min_buffer_size`` was set explicitly and ``buffer_steps`` was not: speak, whatever the
   event. An explicit minimum is the batch size: 1 narrates every event while the narrator
   keeps up (events that arrive while it is busy make the next batch), 5 narrates batches
   of five.
7. At a natural boundary (a tool finished, the agent said something) with ``buffer_steps``
   completed steps waiting: speak. Otherwise hold.

Narrating every tool call would double the narrator's work for nothing: a sentence about a
call and its result together ("I read client.py") says more than two half sentences. Time is
read from the events' own timestamps, not the wall clock, so that a replay narrates where
the live run did.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from monologue import Session
    from monologue.events import Event
    from monologue.settings import MonologueConfig

    from .settings import BufferSettings

# A finished piece of work: a sentence about it can be complete.
STEP_TYPES = frozenset({"tool_result", "text", "agent_update", "agent_result", "error"})
# Where narration fits naturally: after a step, or when the user spoke.
BOUNDARY_TYPES = STEP_TYPES | {"user_message"}
# Stamped when narration happens, not when the agent acted: in a replay, their time is now.
UNTIMED_TYPES = frozenset({"narrative", "narration_suppressed", "summary_refresh"})


@dataclass
class BufferState:
    """What the policy remembers about one session (kept in ``session.state["buffer"]``)."""

    settings: BufferSettings
    config: MonologueConfig
    """The session's configuration (``min_buffer_size``, ``max_buffer_size``,
    ``throttle_ms``); read here once, as the settings, since both are frozen and each read of
    a field costs a trip through pydantic's ``__getattr__``, several per event otherwise."""
    intro_asked: bool = False
    latest_ts: datetime | None = None
    """Timestamp of the newest event seen: the policy's clock, kept only when ``throttle_ms``
    is set (the throttle alone reads it)."""
    last_spoke_ts: datetime | None = None
    """The policy's clock when narration was last asked for or delivered."""
    failing: bool = False
    """An error was announced and nothing has been narrated since."""
    by_size: bool = False
    """Speak as soon as ``min_buffer_size`` events wait (rule 6): the minimum was set
    explicitly and ``buffer_steps`` was not."""
    min_size: int = field(init=False)
    max_size: int = field(init=False)
    throttle_ms: int = field(init=False)
    steps: int = field(init=False)
    intro: bool = field(init=False)

    def __post_init__(self) -> None:
        config, settings = self.config, self.settings
        self.min_size = config.min_buffer_size
        self.max_size = config.max_buffer_size
        self.throttle_ms = config.throttle_ms
        self.steps = settings.steps
        self.intro = settings.intro

    def observe(self, event: Event) -> None:
        if event.type not in UNTIMED_TYPES:
            ts = event.ts
            if self.latest_ts is None or ts > self.latest_ts:
                self.latest_ts = ts

    def spoke(self) -> None:
        self.last_spoke_ts = self.latest_ts


def has_steps(events: Sequence[Event], steps: int) -> bool:
    """Whether ``events`` hold at least ``steps`` completed steps, looking from the newest
    and stopping there: O(steps) for a busy buffer, not O(its length)."""
    found = 0
    for event in reversed(events):  # the buffer's own list, whatever a turn takes meanwhile
        if event.type in STEP_TYPES:
            found += 1
            if found >= steps:
                return True
    return False


def decide(session: Session, event: Event, state: BufferState) -> bool:
    """Whether ``session.pending`` (which already holds ``event``) should be narrated now."""
    pending = session.pending
    waiting = len(pending)
    if waiting >= state.max_size:
        # _speak() inline: a narrator that lags keeps the buffer here, every event.
        state.last_spoke_ts = state.latest_ts
        state.failing = False
        return True
    kind = event.type
    # An error (a failed tool result, an error event) not yet announced; the cheap test first.
    if not state.failing and (
        kind == "error" or (kind == "tool_result" and event.data.get("is_error"))
    ):
        state.spoke()
        state.failing = True
        return True
    if waiting < state.min_size:
        return False
    if state.intro and not state.intro_asked and session.is_first:
        state.intro_asked = True
        return _speak(state)
    if state.throttle_ms and _throttled(state):
        return False
    if state.by_size:
        return _speak(state)
    if kind in BOUNDARY_TYPES and has_steps(pending, state.steps):
        return _speak(state)
    return False


def _speak(state: BufferState) -> bool:
    state.spoke()
    state.failing = False
    return True


def _throttled(state: BufferState) -> bool:
    if state.last_spoke_ts is None or state.latest_ts is None:
        return False
    elapsed_ms = (state.latest_ts - state.last_spoke_ts).total_seconds() * 1000
    return elapsed_ms < state.throttle_ms
