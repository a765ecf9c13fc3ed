"""The plugin's per-session state, kept in ``session.state["anthropic"]``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from monologue import Session

    from .settings import AnthropicSettings
    from .stream import StreamAssembler

STATE_KEY = "anthropic"


def _new_assembler() -> StreamAssembler:
    from .stream import StreamAssembler

    return StreamAssembler()


@dataclass
class AnthropicState:
    settings: AnthropicSettings | None = None
    """Validated once per session, on first use."""
    stream: StreamAssembler = field(default_factory=_new_assembler)
    """Content blocks of the raw stream events fed to the session so far."""


def state_of(session: Session) -> AnthropicState:
    with session.lock:
        state = session.state.get(STATE_KEY)
        if state is None:
            state = session.state[STATE_KEY] = AnthropicState()
    return state


def settings_of(session: Session) -> AnthropicSettings:
    """The session's validated settings (a bad key raises ``ConfigError``)."""
    from .settings import AnthropicSettings

    state = state_of(session)
    if state.settings is None:
        state.settings = session.config.settings(AnthropicSettings)
    return state.settings
