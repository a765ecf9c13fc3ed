"""monologue-template: the offline narrator, monologue's zero-configuration default.

Deterministic first-person sentences built from the events themselves, naming the concrete
subject ("I'm reading src/client.py and tests/test_client.py."), summarising batches ("I ran
the test suite; 2 of 41 tests failed."), saying plainly what failed, and using the history
not to repeat itself. It needs no key and no network, so it is always available.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from monologue import hookimpl

if TYPE_CHECKING:
    from types import ModuleType

    from monologue import Session
    from monologue.events import Event

    from .scene import Scene

__all__ = ["narrate", "narrator_in_place", "scene_of"]


@functools.cache
def _narration() -> ModuleType:
    """The narrator's modules, imported at the first narrative rather than when the plugin
    loads, and once: an import statement in :func:`narrate` would cost on every call."""
    from . import narration

    return narration


def scene_of(session: Session) -> Scene:
    """The narrator's view of ``session`` right now (config, history, open tool calls)."""
    return _narration().scene_of(session)  # type: ignore[no-any-return]


@hookimpl
def narrator_priority() -> int:
    # Always usable, so narrator = "auto" falls back on it when no better narrator can run.
    return 0


@hookimpl
def narrator_in_place() -> bool:
    # Composing is string work on the events it is given: no I/O, no model, nothing to wait
    # for, so an instant replay may run it on its pipeline thread, skipping the hand-offs.
    return True


@hookimpl
def narrate(session: Session, events: list[Event], history: list[str], reason: str) -> str:
    return _narration().narrate(session, events, history, reason)  # type: ignore[no-any-return]
