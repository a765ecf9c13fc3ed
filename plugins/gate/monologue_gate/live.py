"""What the gate's live path keeps of a session, updated once per event on the pipeline thread.

:class:`LiveConversation`: the newest :data:`MAX_EVENTS` events as they are, the older ones
folded into a :class:`~.summaries.SummaryFold`, so memory stays bounded however long the
session; and what in the newest ``window`` events calls for speech, used up when the gate
speaks.
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

__all__ = ["MAX_EVENTS", "ConversationSlice", "LiveConversation"]

MAX_EVENTS = 30
"""Raw events a prompt or a context slice shows; older ones are summarised."""

_FOLD_BATCH = 64
"""Events beyond the newest that wait to be summarised together: the fold costs the same
per event either way, but in batches it stays off most events' path. Not many more: an
event still held when the collector's youngest generation is next collected (every few
dozen events) is kept into the older ones, whose collections then go over it again; with
226, that was 5% of a replay's instructions."""

_SETTLE_AT = MAX_EVENTS + _FOLD_BATCH

# Bound here once: observe() runs once per event.
_TRIGGER_TYPES = policy.TRIGGER_TYPES
_SUBAGENT_TOOLS = policy.SUBAGENT_TOOLS
_RESULT_TYPES = frozenset(
    kind for kind in policy.TRIGGER_TYPES if policy.canonical_type(kind) == "tool_result"
)
_event_trigger = policy.event_trigger


class ConversationSlice(NamedTuple):
    """What :meth:`LiveConversation.reading` holds still."""

    newest: list[Event]
    """The newest events (at most :data:`MAX_EVENTS`), oldest first."""
    older: SummaryFold
    """The summary of every event older than :attr:`newest`."""


class LiveConversation:
    """Every observed event (the newest :data:`MAX_EVENTS` kept, the older summarised), and
    the triggers of the newest ``window`` events since the gate last spoke or a narrative was
    delivered. Failing tool results trigger once per burst: the failures after the first,
    before the next success, are the same story.

    One object and one call (:meth:`observe`) per event: on the pipeline thread, the gate's
    cost is mostly calls and attribute reads. Events are observed on that thread; a context
    slice is read on a narrator's thread, holding :meth:`reading` (the pipeline waits for
    it, never the agent).
    """

    def __init__(self, window: int) -> None:
        self.window = window
        # Most events trigger nothing: the window counts events and keeps only the triggers,
        # each with the count of the event it came from; those older than the newest
        # `window` events have left it, so at most `window` are worth keeping.
        self._seen = 0
        self._triggers: deque[tuple[int, str]] = deque(maxlen=window)
        self._failing = False
        # Set by restart() on another thread (a narrative's delivery), applied on the
        # pipeline's: only the pipeline thread mutates the window, so no lock per event.
        self._restart = False
        self._newest: list[Event] = []  # the newest MAX_EVENTS once settled
        self._older = SummaryFold()
        self._lock = threading.RLock()

    def observe(self, event: Event, kind: str) -> bool:
        """Take in one event (``kind`` is its type, which the caller has read: each read of
        an event's field is a trip through pydantic's ``__getattr__``); returns what
        :meth:`may_speak` would say without hints, the caller's next question."""
        # Only this (the pipeline's) thread appends; a list's append is atomic, and _settle
        # folds and removes a counted prefix, so events appended meanwhile stay. The lock is
        # taken once per _FOLD_BATCH events, not once per event.
        newest = self._newest
        newest.append(event)
        if len(newest) >= _SETTLE_AT:
            with self._lock:
                self._settle()
        if self._restart:  # _apply_restart's test inline
            self._apply_restart()
        self._seen += 1
        if kind in _TRIGGER_TYPES:
            data = event.data
            trigger = None
            if kind not in _RESULT_TYPES:
                trigger = _event_trigger(kind, data)
            elif data.get("is_error"):
                if not self._failing:  # else the burst this failure belongs to has spoken
                    self._failing = True
                    trigger = _event_trigger(kind, data)
            else:
                self._failing = False
                # A success can only be a sub-agent's return: most results skip the policy.
                if data.get("tool_name") in _SUBAGENT_TOOLS:
                    trigger = _event_trigger(kind, data)
            if trigger is not None:
                self._triggers.append((self._seen, trigger))
                return True
        if self._triggers:  # _armed() inline
            return self._triggers[-1][0] > self._seen - self.window
        return False

    # -- the trigger window -------------------------------------------------------------

    @property
    def held(self) -> int:
        """How many events the window holds now."""
        return min(self._seen, self.window)

    def _armed(self) -> bool:
        triggers = self._triggers
        # The newest trigger is the last to leave the window.
        return bool(triggers) and triggers[-1][0] > self._seen - self.window

    def may_speak(self, hints: Sequence[str]) -> bool:
        """Whether :meth:`find` would find something; cheap, and it consumes nothing."""
        if self._restart:
            self._apply_restart()
        if self._armed():
            return True
        return any(hint in policy.SPEAK_HINTS for hint in hints) if hints else False

    def find(self, hints: Sequence[str]) -> str | None:
        """The trigger that calls for speech now, if any (see :func:`policy.find_trigger`)."""
        if not self.may_speak(hints):
            return None
        oldest = self._seen - self.window
        return policy.find_trigger(
            hints, (trigger for seen, trigger in self._triggers if seen > oldest)
        )

    def use_up(self) -> None:
        """The gate spoke: the triggers seen so far have had their narration."""
        self._triggers.clear()
        self._seen = 0

    def restart(self) -> None:
        """A narrative was delivered (any thread): the window starts again at the next event."""
        self._restart = True

    def _apply_restart(self) -> None:
        if self._restart:
            self._restart = False
            self.use_up()

    # -- the conversation ---------------------------------------------------------------

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
            self._older.extend(newest[:extra])
            del newest[:extra]
