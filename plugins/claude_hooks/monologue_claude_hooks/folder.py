"""The collector's folder: its socket, spool, lock and logs, and the lock that keeps one
collector a folder."""

from __future__ import annotations

import fcntl
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from monologue_hook import runtime_dir

__all__ = ["Folder", "lock"]


@dataclass(frozen=True)
class Folder:
    """The files of one collector (``MONOLOGUE_HOOK_DIR``, else a per-user runtime folder)."""

    path: Path

    @classmethod
    def default(cls) -> Folder:
        return cls(Path(runtime_dir()))

    @property
    def socket(self) -> Path:
        return self.path / "collector.sock"

    @property
    def spool(self) -> Path:
        return self.path / "spool.jsonl"

    @property
    def pid(self) -> Path:
        return self.path / "collector.pid"

    @property
    def tail(self) -> Path:
        return self.path / "narratives.log"

    @property
    def log(self) -> Path:
        return self.path / "collector.log"

    @property
    def serve_log(self) -> Path:
        return self.path / "serve.log"

    @property
    def starting(self) -> Path:
        return self.path / "starting"

    def running_pid(self) -> int | None:
        """The collector's process id while one holds the lock, else ``None``."""
        try:
            with open(self.pid, "a+") as handle:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    handle.seek(0)
                    text = handle.read().strip()
                    return int(text) if text.isdigit() else -1
                fcntl.flock(handle, fcntl.LOCK_UN)
                return None
        except OSError:
            return None


def lock(handle: Any, wait_s: float = 30.0) -> bool:
    """Take the collector's lock, waiting a while: ``monologue hook status`` holds it for an
    instant when it looks whether a collector runs, and a stopping collector until its
    sessions' final narrations are done."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
