"""Clean shutdown on SIGTERM: live sessions flush and record their completion first.

SIGTERM is how ``docker stop``, systemd and CI runners end a process; its default action
ends the process at once, losing whatever the recorder had not written yet. When a session
starts, a handler is installed, but only where that is safe: in the main thread (only it
may install handlers) and while SIGTERM has its default action (an application's own
handler, or an ignored SIGTERM, is left alone).

The handler closes every live session on a helper thread (completion event, final
narration within ``final_wait_s``, ``on_complete``: the recorder flushes), then restores the
default action and sends SIGTERM again, so that the process ends as SIGTERM ends it. The
interrupted main thread may hold a lock a session needs (it was stopped mid-event): if the
sessions are not closed after ``_FIRST_WAIT_S``, the handler raises :class:`Terminated`
(a ``SystemExit``) in the main thread, which unwinds like Ctrl-C does, releasing its locks
and closing its own sessions on the way; at exit, once the helper thread is done (Python
joins it), the default action is restored and SIGTERM sent again. If the process is still
alive after ``_LAST_WAIT_S`` (something caught ``Terminated``, or a session hangs in a
plugin), it is killed with SIGKILL: SIGTERM promised an end.
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import threading
import weakref
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._session import Session

__all__ = ["Terminated", "install_if_safe", "track", "untrack"]

log = logging.getLogger("monologue.session")

_FIRST_WAIT_S = 1.0
_LAST_WAIT_S = 15.0

_live: weakref.WeakSet[Session] = weakref.WeakSet()
# Reentrant: the handler runs on the main thread, which it may have interrupted in here.
_lock = threading.RLock()
_installed = False


class Terminated(SystemExit):
    """The process received SIGTERM; raised in the main thread to unwind it, if needed.
    Its exit status is the shell's for a SIGTERM (143), should anything catch and use it."""

    def __init__(self) -> None:
        super().__init__(128 + signal.SIGTERM)

    def __str__(self) -> str:
        return "the process received SIGTERM"


def track(session: Session) -> None:
    """Close ``session`` on SIGTERM if it is still open; installs the handler if safe."""
    with _lock:
        _live.add(session)
    install_if_safe()


def untrack(session: Session) -> None:
    with _lock:
        _live.discard(session)


def install_if_safe() -> bool:
    """Install the SIGTERM handler unless that is unsafe; whether it is installed."""
    global _installed
    with _lock:
        if _installed:
            return True
        if threading.current_thread() is not threading.main_thread():
            return False
        if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return False
        signal.signal(signal.SIGTERM, _on_sigterm)
        _installed = True
        return True


_terminating = threading.Event()


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    if _terminating.is_set():
        return  # a second SIGTERM while closing: the first one ends the process
    _terminating.set()
    with _lock:
        sessions = list(_live)
    last_resort = threading.Timer(_LAST_WAIT_S, os.kill, args=(os.getpid(), signal.SIGKILL))
    last_resort.daemon = True
    last_resort.start()
    # Not a daemon: if the main thread unwinds and the interpreter exits, it waits for this.
    closer = threading.Thread(target=_close, args=(sessions,), name="monologue-sigterm")
    closer.start()
    closer.join(_FIRST_WAIT_S)
    if not closer.is_alive():
        _end()
    atexit.register(_end)
    raise Terminated


def _close(sessions: list[Session]) -> None:
    for session in sessions:
        try:
            session.close(error=Terminated())
        except Exception:
            log.exception("SIGTERM: closing session %s failed", session.id)


def _end() -> None:
    """End the process as SIGTERM's default action does (main thread only)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)
