"""monologue-anthropic: narration by a cheap Claude model through the Messages API.

- ``narrate``: one ``messages.create`` request per narration turn, prompts from the preset
  templates, secrets redacted before anything leaves the process, retries only for 429,
  5xx and 529 within ``narrate_timeout_s`` (see :mod:`monologue_anthropic.narrator`).
- ``narrator_unavailable``: selected by ``narrator="auto"`` only when ``ANTHROPIC_API_KEY``
  is set; ``narrator="anthropic"`` without it fails at session start.
- ``adapt``: Anthropic ``Message`` objects, message params and raw stream events become
  events (:mod:`monologue_anthropic.adapter`).
- ``load_session``: files of Messages API server-sent events and HTTP cassettes
  (:mod:`monologue_anthropic.recordings`).

This module is imported by ``monologue --help``: the SDK, pydantic and the core's models are
imported inside the hooks only.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from monologue import hookimpl

from .controller import control as control  # the `control` hook (gate = "llm")
from .planner import plan as plan  # the `plan` hook; imports its work lazily

if TYPE_CHECKING:
    from pydantic import BaseModel

    from monologue import Narration, Session
    from monologue.events import Event
    from monologue.settings import MonologueConfig

__all__ = [
    "adapt",
    "load_session",
    "narrate",
    "narrator_unavailable",
    "on_session_start",
    "register_settings",
]

_NO_KEY = (
    "ANTHROPIC_API_KEY is not set: export your Anthropic API key, or choose "
    'narrator="template" for offline narration'
)


@hookimpl
def narrator_priority() -> int:
    # Preferred by narrator = "auto" over offline narrators whenever it can run.
    return 100


@hookimpl
def narrator_unavailable(config: MonologueConfig) -> str | None:
    import os

    if not os.environ.get("ANTHROPIC_API_KEY", "").strip():
        return _NO_KEY
    return None


@hookimpl
def register_settings() -> type[BaseModel]:
    from .settings import AnthropicSettings

    return AnthropicSettings


@hookimpl
def on_session_start(session: Session) -> None:
    if session.narrator == "anthropic":
        from .transport import warm_up

        warm_up()


@hookimpl
def narrate(
    session: Session,
    events: list[Event],
    history: list[str],
    reason: str,
    feedback: list[str] | None,
) -> Narration:
    from .narrator import narrate as run

    return run(session, events, history, reason, feedback)


def _looks_anthropic(obj: Any) -> bool:
    """Cheap test before importing the adapter: an SDK model, or a dict with a known shape."""
    if isinstance(obj, dict):
        return "type" in obj or ("role" in obj and "content" in obj)
    return type(obj).__module__.startswith("anthropic.")


@hookimpl
def adapt(obj: Any, session: Session | None) -> list[Event] | None:
    if not _looks_anthropic(obj):
        return None
    from .adapter import adapt as run

    return run(obj, session)


@hookimpl
def load_session(path: Path) -> Iterable[Event] | None:
    from .recordings import load

    return load(path)
