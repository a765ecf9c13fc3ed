"""Run one external tool process under limits: timeout, cancellation, stdout cap, clean env.

The tool runs in a session of its own (``start_new_session``), so its whole process group
(the tool and anything it started) gets SIGTERM, then SIGKILL after a grace, when it runs too
long, is cancelled or floods stdout; whatever is left of the group is killed when the tool
exits, so no orphan survives it. stdout is read incrementally and never buffered past the cap.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Literal

__all__ = ["Limits", "ProcessOutcome", "run_process", "scrubbed_env"]

_CHUNK = 64 * 1024
_STDERR_TAIL = 4096
_POLL_S = 0.02


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


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


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
    started = time.monotonic()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
        start_new_session=True,
    )
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
            _signal_group(proc.pid, signal.SIGTERM)
            if not finished.wait(limits.grace):
                _signal_group(proc.pid, signal.SIGKILL)
            return

    watchdog = threading.Thread(target=watch, daemon=True)
    watchdog.start()
    # Blocking here sees the exit at once; the watchdog stops the tool when it must.
    proc.wait()
    finished.set()
    watchdog.join()
    # The tool is gone; anything it left running in its group goes too.
    _signal_group(proc.pid, signal.SIGKILL)
    for thread in threads:
        thread.join(limits.grace + 1.0)
    for stream in (proc.stdout, proc.stderr):
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
