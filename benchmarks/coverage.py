"""Coverage: the share of a session's narratable events that some narrative covers.

An event is covered when its id is in a narrative's ``covers``, or lies in a narrative's
``covers_range`` (the first and last id of a digest too large to list, inclusive, in the
order the events were dispatched). Hints and the types that are never narrated do not
count: no narrative is meant to cover them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from monologue.events import Event, silent_types


@dataclass
class Coverage:
    covered: int = 0
    narratable: int = 0

    @property
    def percent(self) -> float:
        return 100 * self.covered / self.narratable if self.narratable else 100.0

    def add(self, events: Sequence[Event], narratives: Sequence[Event]) -> None:
        """Count one session: the events dispatched to it and the narratives it delivered."""
        silent = silent_types() | {"hint"}
        order = [event.id for event in events if event.type not in silent]
        position = {event_id: index for index, event_id in enumerate(order)}
        covered: set[str] = set()
        for narrative in narratives:
            covered.update(narrative.data.get("covers") or ())
            span = narrative.data.get("covers_range")
            if span and span[0] in position and span[1] in position:
                covered.update(order[position[span[0]] : position[span[1]] + 1])
        self.covered += sum(1 for event_id in order if event_id in covered)
        self.narratable += len(order)
