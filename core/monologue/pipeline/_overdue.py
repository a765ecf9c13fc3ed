"""Narrator calls the worker stopped waiting for, and the pause they cause.

A call that misses its turn's timeout goes on in the pool (a thread cannot be killed). One
that is still running at twice ``narrate_timeout_s`` is *stuck*. When a narrator has
``narrator_stuck_limit`` stuck calls, narration with it pauses in every session (one
warning), so that a narrator that never returns cannot take one thread per turn for good;
it resumes (one info line) as soon as enough of those calls return.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future
from typing import Any

__all__ = ["Overdue", "overdue_calls"]

log = logging.getLogger("monologue.worker")


class Overdue:
    """Abandoned narrator calls by narrator, and which narrators are paused."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[str, dict[Future[Any], float]] = {}
        self._paused: dict[str, int] = {}
        """Paused narrators, with the limit that paused them."""

    def abandon(self, narrator: str, future: Future[Any], stuck_after_s: float) -> None:
        """Track ``future``, which nobody waits for any more: stuck if still running after
        ``stuck_after_s`` more seconds."""
        with self._lock:
            self._calls.setdefault(narrator, {})[future] = time.monotonic() + stuck_after_s
        future.add_done_callback(lambda done: self._returned(narrator, done))

    def pause_reason(self, narrator: str, limit: int) -> str | None:
        """Why narration with ``narrator`` is paused now, or ``None`` when it is not."""
        if not self._calls.get(narrator):
            # Asked at every turn, and nearly always with no abandoned call: no lock then. A
            # call abandoned meanwhile is not stuck yet anyway (it is at twice the timeout).
            return None
        with self._lock:
            stuck = self._stuck(narrator)
            if stuck < limit:
                return None
            first = narrator not in self._paused
            self._paused.setdefault(narrator, limit)
        if first:
            log.warning(
                "narrator %r: %d of its calls never returned (still running after twice "
                "narrate_timeout_s); narration with it is paused until they return "
                "(narrator_stuck_limit = %d)",
                narrator,
                stuck,
                limit,
            )
        return (
            f"narration with {narrator!r} is paused: {stuck} of its calls never returned "
            f"(narrator_stuck_limit = {limit})"
        )

    def stuck(self, narrator: str) -> int:
        """How many of ``narrator``'s abandoned calls are stuck now."""
        with self._lock:
            return self._stuck(narrator)

    def _stuck(self, narrator: str) -> int:
        now = time.monotonic()
        return sum(at <= now for at in self._calls.get(narrator, {}).values())

    def _returned(self, narrator: str, future: Future[Any]) -> None:
        with self._lock:
            self._calls.get(narrator, {}).pop(future, None)
            limit = self._paused.get(narrator)
            resumed = limit is not None and self._stuck(narrator) < limit
            if resumed:
                del self._paused[narrator]
        if resumed:
            log.info("narrator %r answered again; narration with it resumes", narrator)


_overdue = Overdue()


def overdue_calls() -> Overdue:
    """The process-wide tracker (narrators and the pool are process-wide too)."""
    return _overdue
