"""The pending buffer: a session's events that no narrative has covered yet.

The session appends to it on the agent's thread; the narration worker takes a batch, and
puts it back in front when the narrator waits or fails. Only this class touches the list.
At ``buffer_cap`` events the oldest are folded into a bounded digest (:mod:`._fold`) that
the next batch starts with, so that a slow or waiting narrator still covers every event.
Callers hold the session's lock around every method (the worker's condition shares it), so
the buffer adds no locking of its own to the agent's hot path.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, overload

from monologue.digest._fold import Fold
from monologue.events import FOLDED_TYPE

if TYPE_CHECKING:
    from monologue.events import Event

log = logging.getLogger("monologue.session")


class PendingBuffer(Sequence["Event"]):
    """Events waiting for narration, oldest first; a read-only sequence to everyone else."""

    def __init__(self, cap: int, describe: Callable[[], str]) -> None:
        self._events: list[Event] = []
        self._cap = cap
        self._fold = Fold()
        # The fold a running turn took, given back with its batch if the turn is not narrated.
        self._taken: Fold | None = None
        # Who owns the buffer, for the one warning when the cap is first reached.
        self._describe = describe
        self._warned = False
        # After a *wait* answer, ordinary requests are ignored until this many events have
        # arrived: counted as they arrive, since at the cap the buffer's length stops growing.
        self._arrived = 0
        self._wait_mark = 0
        self.dropped = 0
        """Events that will never be narrated: lost with a failed turn."""
        self.folded = 0
        """Events folded into a digest at the cap (each is narrated with the digest)."""
        self.waits = 0
        """Times the narrator answered *wait* and the batch came back."""

    # -- read-only sequence ---------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._events)

    @overload
    def __getitem__(self, index: int) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Event]: ...
    def __getitem__(self, index: int | slice) -> Event | Sequence[Event]:
        return self._events[index]

    def __iter__(self) -> Iterator[Event]:
        return iter(self._events)

    def __reversed__(self) -> Iterator[Event]:
        # Over the list as it is now: a turn taking the batch meanwhile swaps in a new one.
        return reversed(self._events)

    def __repr__(self) -> str:
        folded = f" +{len(self._fold)} folded" if self._fold else ""
        return f"<PendingBuffer {len(self._events)}/{self._cap}{folded}>"

    # -- the session's side -------------------------------------------------------------

    def append(self, event: Event) -> None:
        """Buffer ``event``; past the cap the oldest events are folded into the digest."""
        self._arrived += 1
        events = self._events
        events.append(event)
        if len(events) > self._cap:
            self._enforce_cap()

    def only(self, kind: str) -> bool:
        """True when every buffered event (if any) is of type ``kind``."""
        return not self._fold and all(event.type == kind for event in self._events)

    def clear(self) -> None:
        self._events.clear()
        self._fold = Fold()

    # -- the worker's side --------------------------------------------------------------

    def take(self, limit: int | None = None) -> list[Event]:
        """Every buffered event, leaving the buffer empty (one narration turn's batch); the
        digest of folded events, if any, comes first as an ``events_folded`` event.

        ``limit`` (``max_buffer_size``) caps the batch's length, the digest included: the
        oldest events beyond it are folded into the digest, so a narrator is never handed
        more than ``limit`` events however far behind it is."""
        events, self._events = self._events, []
        if limit is not None and len(events) + bool(self._fold) > limit:
            overflow = len(events) - max(limit - 1, 0)  # room for the digest
            fold = self._fold
            for event in events[:overflow]:
                fold.add(event)
            self.folded += overflow
            del events[:overflow]
        self._taken = None
        if self._fold:
            self._taken, self._fold = self._fold, Fold()
            events.insert(0, self._taken.as_event())
        return events

    def put_back(self, events: list[Event], *, hold_for: int | None = None) -> None:
        """Return an unnarrated batch to the front. After a *wait* answer, ``hold_for`` sets
        the wait mark: ordinary requests are ignored until that many more events arrive."""
        older = Fold()
        if events and events[0].type == FOLDED_TYPE:
            older = self._taken or older
            events = events[1:]
        self._taken = None
        if self._fold:
            # The cap was reached during the turn: the batch is older than what was folded
            # since, so it joins the digest before it.
            for event in events:
                older.add(event)
            self.folded += len(events)
            events = []
        self._fold = older.then(self._fold)
        self._events[:0] = events
        self._enforce_cap()
        if hold_for is not None:
            self._wait_mark = self._arrived + hold_for

    def count_wait(self) -> None:
        """The narrator answered *wait* to a batch taken from here."""
        self.waits += 1

    def drop(self, events: list[Event]) -> None:
        """A taken batch will never be narrated (its turn failed): count it."""
        folded = self._taken if events and events[0].type == FOLDED_TYPE else None
        self.dropped += (len(events) - 1 + len(folded)) if folded else len(events)
        self._taken = None

    def clear_wait(self) -> None:
        """A narrative was delivered: requests are no longer held by a *wait*."""
        self._wait_mark = 0

    def below_wait_mark(self) -> bool:
        """True while a *wait* answer holds ordinary narration requests back."""
        return self._arrived < self._wait_mark

    def _enforce_cap(self) -> None:
        excess = len(self._events) - self._cap
        if excess <= 0:
            return
        fold = self._fold
        if excess == 1:  # at the cap, each new event folds the oldest: a flood's every event
            fold.add(self._events.pop(0))
        else:
            for event in self._events[:excess]:
                fold.add(event)
            del self._events[:excess]
        self.folded += excess
        if not self._warned:
            self._warned = True
            log.warning(
                "%s: narration buffer reached its cap of %d events while the narrator is "
                "busy or waiting, or a should_speak plugin holds; the oldest are folded into "
                "a digest (counts by tool, files, commands, errors) that the next narrative "
                "covers in a sentence or two instead of one by one",
                self._describe(),
                self._cap,
            )
