"""Run one external tool process under limits: timeout, cancellation, stdout cap, clean env.

The tool runs in a session of its own (``start_new_session``). When it runs too long, is
cancelled or floods stdout, its process tree gets SIGTERM, then SIGKILL after a grace; when it
exits, whatever it left running is killed, so no orphan survives it. stdout is read
incrementally and never buffered past the cap.

"Its process tree" is found by :mod:`monologue_skills.reaping`: the tool's process group,
its live descendants, and (on Linux, where the running process is a child subreaper while
tools run) every descendant that left the session with ``setsid`` or a double fork, by the
run's marker in its environment. The call never waits on a pipe an escaped process still
holds: once the tree is killed, the readers get a short grace, then the call returns.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Literal

from .reaping import ToolTree

__all__ = ["Limits", "ProcessOutcome", "run_process", "scrubbed_env"]

_CHUNK = 64 * 1024
_STDERR_TAIL = 4096
_POLL_S = 0.02
_READ_GRACE_S = 0.5


@dataclass(frozen=True)
class Limits:
    """What a tool runs under."""

    timeout: float = 10.0
    grace: float = 1.0
    stdout_cap: int = 1 << 20
    env_allow: frozenset[str] = frozenset()


@dataclass
class ProcessOutcome:
    """How the process ended; ``stopped`` says why monologue stopped it, if it did."""

    returncode: int | None
    stdout: bytes
    stderr: str
    stopped: Literal["timeout", "cancelled", "overflow"] | None = None
    duration_s: float = 0.0


def scrubbed_env(
    allow: Iterable[str] = (), environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment without secrets (API keys, tokens, passwords) unless allow-listed."""
    from monologue.redact import is_secret_key

    allowed = set(allow)
    source = os.environ if environ is None else environ
    return {k: v for k, v in source.items() if k in allowed or not is_secret_key(k)}


@dataclass
class _Reader:
    stream: IO[bytes]
    cap: int | None
    data: bytearray = field(default_factory=bytearray)
    overflow: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while chunk := self.stream.read1(_CHUNK):  # type: ignore[attr-defined]
            if self.cap is None:
                self.data += chunk
                del self.data[:-_STDERR_TAIL]
            elif len(self.data) + len(chunk) > self.cap:
                self.overflow.set()
                return
            else:
                self.data += chunk


def _feed(stream: IO[bytes], data: bytes) -> None:
    try:
        stream.write(data)
        stream.close()
    except (BrokenPipeError, OSError):
        pass  # the tool need not read its input


def run_process(
    argv: list[str],
    stdin: bytes,
    *,
    cwd: Path,
    limits: Limits,
    env: dict[str, str],
    cancel: threading.Event | None = None,
) -> ProcessOutcome:
    """Run ``argv`` with ``stdin`` under ``limits``; raises ``OSError`` only when it cannot
    start (not executable, bad interpreter line)."""
    with ToolTree(env) as tree:
        return _run(argv, stdin, cwd=cwd, limits=limits, tree=tree, cancel=cancel)


def _run(
    argv: list[str],
    stdin: bytes,
    *,
    cwd: Path,
    limits: Limits,
    tree: ToolTree,
    cancel: threading.Event | None,
) -> ProcessOutcome:
    started = time.monotonic()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=tree.env,
        start_new_session=True,
    )
    tree.started(proc.pid)
    assert proc.stdin is not None
    assert proc.stdout is not None
    assert proc.stderr is not None
    out = _Reader(proc.stdout, limits.stdout_cap)
    err = _Reader(proc.stderr, None)
    threads = [
        threading.Thread(target=_feed, args=(proc.stdin, stdin), daemon=True),
        threading.Thread(target=out.run, daemon=True),
        threading.Thread(target=err.run, daemon=True),
    ]
    for thread in threads:
        thread.start()
    stopped: list[Literal["timeout", "cancelled", "overflow"]] = []
    finished = threading.Event()

    def watch() -> None:
        deadline = started + limits.timeout
        while not finished.wait(_POLL_S):
            if out.overflow.is_set():
                stopped.append("overflow")
            elif cancel is not None and cancel.is_set():
                stopped.append("cancelled")
            elif time.monotonic() >= deadline:
                stopped.append("timeout")
            else:
                continue
            tree.signal(signal.SIGTERM)
            if not finished.wait(limits.grace):
                tree.signal(signal.SIGKILL)
            return

    watchdog = threading.Thread(target=watch, daemon=True)
    watchdog.start()
    # Blocking here sees the exit at once; the watchdog stops the tool when it must.
    proc.wait()
    finished.set()
    watchdog.join()
    # The tool is gone; anything it left running goes too, which closes the pipes it held.
    tree.kill()
    # A process beyond reach (another user's, say) may still hold a pipe: wait for the
    # readers no longer than a short grace, and leave a reader that is still blocked to end
    # with its daemon thread (closing its stream now would wait for the read to finish).
    reading_until = time.monotonic() + _READ_GRACE_S
    for thread in threads:
        thread.join(max(0.0, reading_until - time.monotonic()))
    for stream, reader in ((proc.stdout, threads[1]), (proc.stderr, threads[2])):
        if not reader.is_alive():
            stream.close()
    if not stopped and out.overflow.is_set():
        stopped.append("overflow")
    return ProcessOutcome(
        returncode=proc.returncode,
        stdout=bytes(out.data),
        stderr=err.data.decode("utf-8", "replace"),
        stopped=stopped[0] if stopped else None,
        duration_s=time.monotonic() - started,
    )
