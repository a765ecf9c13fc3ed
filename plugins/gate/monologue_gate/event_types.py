"""The event type the gate's controller records: ``summary_refresh``, never narrated."""

from __future__ import annotations

from monologue.events import Payload

__all__ = ["SummaryRefreshData"]


class SummaryRefreshData(Payload):
    """A rolling summary of older events was (re)written; ``summary_ref`` names it."""

    summary_ref: str
