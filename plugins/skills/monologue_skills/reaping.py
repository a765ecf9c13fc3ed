"""Find and kill everything an external tool started, including what tried to escape.

A tool runs in a session of its own, so signalling its process group reaches the tool and
the children that stayed in the group. A descendant that calls ``setsid`` (daemons, ``nohup``
wrappers, some test runners) or double-forks leaves that group, and once its parent exits it
is no longer in the tool's tree either. Two things find it anyway:

- **a marker**: the tool's environment carries ``MONOLOGUE_TOOL_RUN=<token>``, one token per
  run, which every descendant inherits unless it clears its environment;
- **a child subreaper** (Linux): while a tool runs, the running process is a child subreaper
  (``prctl(PR_SET_CHILD_SUBREAPER)``), so an orphaned descendant is re-parented to it, not to
  init, and stays in its own process tree, where the marker names the run it belongs to.
  Killed orphans are reaped here, so none is left a zombie.

What other systems catch: the tool's process group, and the descendants still connected to the
tool or to the running process (found by :mod:`psutil` and the marker). A descendant that both
leaves the session and loses its parent is re-parented to init (launchd on macOS) and is not
found; so is, on Linux too, a descendant that clears its environment *and* leaves the session
*and* outlives its parent. A cgroup would catch those; monologue does not create one, because
an unprivileged process rarely has a delegated cgroup to write to.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import sys
import threading
import time
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import psutil

__all__ = ["MARKER", "ToolTree"]

MARKER = "MONOLOGUE_TOOL_RUN"
"""The environment variable that marks a tool run's processes."""

_PR_SET_CHILD_SUBREAPER = 36
_KILL_ROUNDS = 10
_REAP_S = 1.0


class _Subreaper:
    """The running process is a child subreaper while at least one tool runs (Linux)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._prctl = None
        if sys.platform == "linux":
            import ctypes

            with contextlib.suppress(OSError, AttributeError):
                self._prctl = ctypes.CDLL(None, use_errno=True).prctl

    @property
    def available(self) -> bool:
        return self._prctl is not None

    def acquire(self) -> None:
        with self._lock:
            if self._users == 0:
                self._set(1)
            self._users += 1

    def release(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0:
                # Off between runs: the process's other children orphan as they always did.
                self._set(0)

    def _set(self, on: int) -> None:
        if self._prctl is not None:
            self._prctl(_PR_SET_CHILD_SUBREAPER, on, 0, 0, 0)


_SUBREAPER = _Subreaper()


class ToolTree:
    """One tool run's processes: :attr:`env` to start the tool with, then
    :meth:`started`, :meth:`signal` while it runs and :meth:`kill` once it has exited."""

    def __init__(self, env: dict[str, str]) -> None:
        self._token = secrets.token_hex(8)
        self.env = {**env, MARKER: self._token}
        self._pid: int | None = None
        self._seen: dict[int, psutil.Process] = {}

    def __enter__(self) -> ToolTree:
        _SUBREAPER.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if exc is not None and self._pid is not None:
                self.kill()  # interrupted (Ctrl-C, a bug): the tree goes all the same
        finally:
            _SUBREAPER.release()

    def started(self, pid: int) -> None:
        """The tool is running as ``pid``, the leader of its own session and group."""
        self._pid = pid

    def signal(self, sig: signal.Signals) -> None:
        """Send ``sig`` to the tool and every process of its tree that can be found."""
        if self._pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._pid, sig)
        for process in self._members():
            with contextlib.suppress(Exception):
                process.send_signal(sig)

    def kill(self) -> None:
        """SIGKILL whatever is left of the tree, until two searches in a row find nothing,
        then reap the orphans it left us. A process may fork between being found and being
        killed; and one whose parent exits while the tree is walked is re-parented to this
        process after its list of children was read, and from a list already read: that
        walk misses it, the next one finds it."""
        found_nothing = 0
        for _ in range(_KILL_ROUNDS):
            if self._pid is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self._pid, signal.SIGKILL)
            members = [p for p in self._members() if p.pid != self._pid]
            found_nothing = 0 if members else found_nothing + 1
            if found_nothing == 2:
                break
            for process in members:
                with contextlib.suppress(Exception):
                    process.kill()
        self._reap()

    def _members(self) -> list[psutil.Process]:
        import psutil

        found: dict[int, psutil.Process] = {}
        if self._pid is not None:
            for pid in [self._pid, *_descendants(self._pid)]:
                with contextlib.suppress(psutil.Error):
                    found[pid] = psutil.Process(pid)
        # Descendants that left the tool's tree: re-parented to this process (subreaper), or
        # still below one of its children. The marker says which run they belong to.
        for pid in _descendants(os.getpid()):
            if pid in found:
                continue
            with contextlib.suppress(psutil.Error):
                process = psutil.Process(pid)
                if process.environ().get(MARKER) == self._token:
                    found[pid] = process
        for pid, process in found.items():
            if pid != self._pid:
                self._seen.setdefault(pid, process)
        return [p for p in found.values() if _running(p)]

    def _reap(self) -> None:
        """Collect the exit status of killed processes re-parented to this process; a process
        that is not (or no longer) its child is someone else's to reap."""

        waiting = set(self._seen)
        deadline = time.monotonic() + _REAP_S
        while waiting and time.monotonic() < deadline:
            for pid in list(waiting):
                try:
                    reaped, _ = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    # Not our child yet (its parent is dying, and then it is ours), or gone,
                    # or re-parented to init, which reaps it.
                    if not _orphan_to_come(pid):
                        waiting.discard(pid)
                    continue
                if reaped == pid:
                    waiting.discard(pid)
            if waiting:
                time.sleep(0.01)
        self._seen.clear()


def _descendants(pid: int) -> list[int]:
    """Every descendant of ``pid``, read from ``/proc/PID/task/TID/children`` (Linux): a walk
    of the tree only, where psutil reads every process on the machine to find children."""
    if not _PROC_CHILDREN:
        import psutil

        with contextlib.suppress(psutil.Error):
            return [p.pid for p in psutil.Process(pid).children(recursive=True)]
        return []
    found: list[int] = []
    waiting = [pid]
    while waiting:
        parent = waiting.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children", "rb") as listing:
                    children = [int(child) for child in listing.read().split()]
            except OSError:
                continue
            found += children
            waiting += children
    return found


_PROC_CHILDREN = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


def _running(process: psutil.Process) -> bool:
    import psutil

    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _orphan_to_come(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).ppid() != 1
    except psutil.Error:
        return False
