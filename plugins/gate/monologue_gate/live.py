"""What the gate's live path keeps of a session, updated once per event on the pipeline thread.

:class:`TriggerWindow`: what in the newest ``window`` events calls for speech, used up when
the gate speaks. :class:`Conversation`: the newest :data:`MAX_EVENTS` events as they are,
the older ones folded into a :class:`~.summaries.SummaryFold`, so memory stays bounded
however long the session.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import NamedTuple

from monologue.events import Event

from . import policy
from .summaries import SummaryFold

__all__ = ["MAX_EVENTS", "Conversation", "ConversationSlice", "TriggerWindow"]

MAX_EVENTS = 30
"""Raw events a prompt or a context slice shows; older ones are summarised."""

_FOLD_BATCH = 226
"""Events beyond the newest that wait to be summarised together: the fold costs the same
per event either way, but in batches it stays off most events' path."""


class TriggerWindow:
    """Triggers of the newest ``size`` events. Failing tool results trigger once per burst:
    the failures after the first, before the next success, are the same story."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._triggers: deque[str | None] = deque(maxlen=size)
        self._armed = 0  # how many of _triggers are not None
        self._failing = False
        # Set by restart() on another thread (a narrative's delivery), applied on the
        # pipeline's: only the pipeline thread mutates the window, so no lock per event.
        self._restart = False

    def __len__(self) -> int:
        return len(self._triggers)

    def observe(self, event: Event) -> None:
        if self._restart:  # _apply_restart's test inline: this runs once per event
            self._apply_restart()
        kind = event.type
        trigger = None
        if kind in policy.TRIGGER_TYPES:
            trigger = policy.event_trigger(kind, event.data)
            if policy.canonical_type(kind) == "tool_result":
                failing = bool(event.data.get("is_error"))
                if failing and self._failing:
                    trigger = None  # the burst this failure belongs to has spoken already
                self._failing = failing
        triggers = self._triggers
        if len(triggers) == self.size and triggers[0] is not None:
            self._armed -= 1  # about to leave the window
        if trigger is not None:
            self._armed += 1
        triggers.append(trigger)

    def may_speak(self, hints: Sequence[str]) -> bool:
        """Whether :meth:`find` would find something; cheap, and it consumes nothing."""
        if self._restart:
            self._apply_restart()
        if self._armed:
            return True
        return any(hint in policy.SPEAK_HINTS for hint in hints) if hints else False

    def find(self, hints: Sequence[str]) -> str | None:
        """The trigger that calls for speech now, if any (see :func:`policy.find_trigger`)."""
        return policy.find_trigger(hints, self._triggers) if self.may_speak(hints) else None

    def use_up(self) -> None:
        """The gate spoke: the triggers seen so far have had their narration."""
        self._triggers.clear()
        self._armed = 0

    def restart(self) -> None:
        """A narrative was delivered (any thread): the window starts again at the next event."""
        self._restart = True

    def _apply_restart(self) -> None:
        if self._restart:
            self._restart = False
            self.use_up()


class ConversationSlice(NamedTuple):
    """What :meth:`Conversation.reading` holds still."""

    newest: list[Event]
    """The newest events (at most :data:`MAX_EVENTS`), oldest first."""
    older: SummaryFold
    """The summary of every event older than :attr:`newest`."""


class Conversation:
    """Every observed event: the newest :data:`MAX_EVENTS` kept, the older summarised.

    Events are added on the session's pipeline thread; a context slice is read on a
    narrator's thread, holding :meth:`reading` (the pipeline waits for it, never the agent).
    """

    def __init__(self) -> None:
        self._newest: list[Event] = []  # the newest MAX_EVENTS once settled
        self._older = SummaryFold()
        self._lock = threading.RLock()

    def add(self, event: Event) -> None:
        # Only this (the pipeline's) thread appends; a list's append is atomic, and _settle
        # folds and removes a counted prefix, so events appended meanwhile stay. The lock is
        # taken once per _FOLD_BATCH events, not once per event.
        newest = self._newest
        newest.append(event)
        if len(newest) >= MAX_EVENTS + _FOLD_BATCH:
            with self._lock:
                self._settle()

    @contextmanager
    def reading(self) -> Iterator[ConversationSlice]:
        """The conversation as it is now, held still while a slice is built from it: events
        the pipeline adds meanwhile join the next slice, and nothing is folded until the
        block ends, so no event is in both parts or in neither."""
        with self._lock:
            self._settle()
            yield ConversationSlice(list(self._newest), self._older)

    @property
    def newest(self) -> list[Event]:
        """The newest events (at most :data:`MAX_EVENTS`), oldest first."""
        self._settle()
        return list(self._newest)

    @property
    def older(self) -> SummaryFold:
        """The summary of every event older than :attr:`newest`."""
        self._settle()
        return self._older

    def _settle(self) -> None:
        newest = self._newest
        extra = len(newest) - MAX_EVENTS
        if extra > 0:
            add = self._older.add
            for event in newest[:extra]:
                add(event)
            del newest[:extra]
