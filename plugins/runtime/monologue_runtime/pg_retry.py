"""Riding out a lost database connection: a server restart, a failover, a network blip.

Every operation of :class:`~monologue_runtime.PostgresTaskStore` runs through
:meth:`Reconnect.run`: when the connection is lost it waits (capped exponential back-off
with jitter, so that many agents do not reconnect in step) and runs the operation again on
a fresh connection, for up to ``retry_for`` seconds. An outage is logged once, as one
warning line when it starts (and one info line when it ends), however many tries it takes
and however many threads notice it. psycopg_pool's own lines about our pools' connections
(one per broken connection and per failed reconnection) say the same thing again, so
they are lowered to DEBUG (and dropped unless that logger shows DEBUG).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from typing import TypeVar

__all__ = ["POOL_NAME_PREFIX", "Reconnect", "connection_lost"]

T = TypeVar("T")

POOL_NAME_PREFIX = "monologue-runtime"
_FIRST_DELAY_S = 0.05
_LONGEST_DELAY_S = 2.0
# Server states that end every session and come back by themselves: shutting down
# (57P01 admin, 57P02 crash), starting up (57P03), or a connection-class error (08...).
_TRANSIENT_STATES = ("57P01", "57P02", "57P03")

log = logging.getLogger("monologue.runtime")


def connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` means the connection (or the server) went away, so the same work may
    succeed on a new connection; a refused password or a bad query is not."""
    import psycopg
    from psycopg_pool import PoolTimeout

    if isinstance(exc, PoolTimeout):
        return True  # no connection could be made in time: the server is not there (yet)
    if not isinstance(exc, psycopg.OperationalError):
        return False
    state = exc.sqlstate
    if state is None:  # raised by libpq itself: the socket closed, or connecting failed
        return "authentication failed" not in str(exc)
    return state.startswith("08") or state in _TRANSIENT_STATES


class Reconnect:
    """Run operations again after a lost connection, and report each outage once."""

    def __init__(self, location: str, retry_for: float) -> None:
        self.location = location
        self.retry_for = retry_for
        self._lock = threading.Lock()
        self._down_since: float | None = None

    def run(self, operation: Callable[[], T]) -> T:
        """``operation()``, tried again while the connection is lost, for ``retry_for``
        seconds from the first failure; then the last error propagates."""
        given_up_at: float | None = None
        delay = _FIRST_DELAY_S
        while True:
            try:
                result = operation()
            except Exception as exc:
                if not connection_lost(exc):
                    raise
                now = time.monotonic()
                given_up_at = given_up_at or now + self.retry_for
                self.lost(exc)
                if now >= given_up_at:
                    raise
                time.sleep(min(random.uniform(delay / 2, delay), given_up_at - now))
                delay = min(delay * 2, _LONGEST_DELAY_S)
                continue
            self.back()
            return result

    def lost(self, exc: BaseException) -> None:
        """Note that the connection is lost; the first notice of an outage logs it."""
        with self._lock:
            if self._down_since is not None:
                return
            self._down_since = time.monotonic()
        reason = " ".join(str(exc).split()) or type(exc).__name__
        log.warning(
            "%s: lost the database connection (%s); reconnecting for up to %g s",
            self.location,
            reason,
            self.retry_for,
        )

    def back(self) -> None:
        """Note that an operation worked; ends the outage, if there was one."""
        if self._down_since is None:  # the common case, without taking the lock
            return
        with self._lock:
            since, self._down_since = self._down_since, None
        if since is not None:
            log.info(
                "%s: database connection back after %.1f s", self.location, time.monotonic() - since
            )


class _QuietOurPools(logging.Filter):
    """Lower psycopg_pool's warnings about our pools to DEBUG: :class:`Reconnect` already
    said the connection was lost, once."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.WARNING or not _about_our_pool(record):
            return True
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)


def _about_our_pool(record: logging.LogRecord) -> bool:
    args = record.args if isinstance(record.args, tuple) else ()
    for arg in args:
        name = arg if isinstance(arg, str) else getattr(getattr(arg, "_pool", None), "name", "")
        if isinstance(name, str) and name.startswith(POOL_NAME_PREFIX):
            return True
    return threading.current_thread().name.startswith(POOL_NAME_PREFIX)


logging.getLogger("psycopg.pool").addFilter(_QuietOurPools())
