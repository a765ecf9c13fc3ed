"""monologue-buffer: when to narrate.

The default ``should_speak`` policy (see :mod:`monologue_buffer.policy`): hold below
``min_buffer_size``, introduce the work early, speak at once after an error, respect
``throttle_ms``, and otherwise speak at natural boundaries once ``buffer_steps`` steps have
completed (or, when only ``min_buffer_size`` was set, as soon as that many events wait),
always by ``max_buffer_size``. It answers last (``trylast``), so a controller such
as the gate overrides it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from monologue import hookimpl

# Standard library only, so `monologue --help` stays light; imported here rather than in the
# hooks because a function-level import costs about a microsecond on every event.
from .policy import BufferState, decide

if TYPE_CHECKING:
    from pydantic import BaseModel

    from monologue import Session
    from monologue.events import Event

__all__ = [
    "on_event",
    "on_narrative",
    "on_session_start",
    "register_settings",
    "should_speak",
    "state_of",
]

_STATE_KEY = "buffer"


def state_of(session: Session) -> BufferState:
    """The policy's state for ``session``, created on first use from its configuration."""
    state: BufferState | None = session.state.get(_STATE_KEY)
    if state is not None:
        return state
    from .settings import BufferSettings

    config = session.config
    settings = config.settings(BufferSettings)
    by_size = "min_buffer_size" in config.model_fields_set and config.source("buffer_steps") == (
        "default"
    )
    state = session.state[_STATE_KEY] = BufferState(settings, config, by_size=by_size)
    return state


@hookimpl
def register_settings() -> type[BaseModel]:
    from .settings import BufferSettings

    return BufferSettings


@hookimpl
def on_session_start(session: Session) -> None:
    # Validates the settings when the session starts, so a bad value is reported at once.
    state_of(session)


@hookimpl
def on_event(session: Session, event: Event) -> None:
    # The policy's clock is the events' own time (see policy.BufferState.latest_ts), and only
    # the throttle reads it: a session without one (the default) needs no clock, nor does a
    # session nobody narrates (a replay with narrator none, say).
    if session.narrator is not None:
        state = session.state.get(_STATE_KEY) or state_of(session)
        if state.throttle_ms:
            state.observe(event)


@hookimpl(trylast=True)
def should_speak(session: Session, event: Event) -> bool | None:
    if event.type == "hint":
        return None  # hints are for controllers; a hint adds nothing to the buffer
    # state_of()'s common case inline: the hooks above run once per event.
    return decide(session, event, session.state.get(_STATE_KEY) or state_of(session))


@hookimpl
def on_narrative(session: Session) -> None:
    # Narration asked for by anyone (a controller, the core at max_buffer) resets the throttle.
    state_of(session).spoke()
