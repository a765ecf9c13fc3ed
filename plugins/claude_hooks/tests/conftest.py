"""Shared helpers: real ``monologue-hook run`` processes against a collector in a folder of
the test's own, and the recordings they leave."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from monologue_claude_hooks.folder import Folder

from monologue.events import Event
from monologue.recording import read_recording

FIXTURES = Path(__file__).parent / "fixtures"
SHARED_TRACES = Path(__file__).resolve().parents[4] / "shared" / "traces"
HOOK = str(Path(sys.executable).with_name("monologue-hook"))
MONOLOGUE = str(Path(sys.executable).with_name("monologue"))


def payload_lines(path: Path) -> list[bytes]:
    return [line for line in path.read_bytes().splitlines() if line.strip()]


@dataclass
class HookWorld:
    """A collector folder, a record folder and the environment the hooks run with."""

    folder: Folder
    record_dir: Path
    env: dict[str, str]

    def run(
        self, payload: bytes, command: list[str] | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            command or [HOOK, "run"], input=payload, env=self.env, capture_output=True, timeout=30
        )

    def run_shell(self, command: str, payload: bytes) -> subprocess.CompletedProcess[bytes]:
        """``command`` as Claude Code runs a hook: through the shell, payload on stdin."""
        return subprocess.run(
            ["sh", "-c", command], input=payload, env=self.env, capture_output=True, timeout=30
        )

    def wait_stopped(self, timeout: float = 90.0) -> None:
        """Until the collector has gone idle and stopped (its sessions closed)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.folder.running_pid() is None and not self.folder.starting.exists():
                return
            time.sleep(0.1)
        raise AssertionError(f"the collector in {self.folder.path} did not stop: {self.log()}")

    def wait_running(self, timeout: float = 60.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid = self.folder.running_pid()
            if pid and self.folder.socket.exists():
                return pid
            time.sleep(0.05)
        raise AssertionError(f"no collector came up in {self.folder.path}: {self.log()}")

    def log(self) -> str:
        path = self.folder.log
        return path.read_text(errors="replace")[-3000:] if path.exists() else "(no log)"

    def events(self, session_id: str) -> list[Event]:
        path = self.record_dir / f"{session_id}.jsonl"
        assert path.exists(), f"session {session_id} was not recorded: {self.log()}"
        return list(read_recording(path))


@pytest.fixture
def world(tmp_path: Path) -> Iterator[HookWorld]:
    # A short folder: a Unix socket's path must fit in 108 bytes.
    runtime = Path(tempfile.mkdtemp(prefix="mh-", dir="/tmp"))
    env = {
        **os.environ,
        "MONOLOGUE_HOOK_DIR": str(runtime),
        "MONOLOGUE_RECORD_DIR": str(tmp_path / "recorded"),
        "MONOLOGUE_HOOK_IDLE_S": "2",
        "MONOLOGUE_NO_CONFIG_FILE": "1",
        "MONOLOGUE_NARRATOR": "template",
        "ANTHROPIC_API_KEY": "",
    }
    found = HookWorld(Folder(runtime), tmp_path / "recorded", env)
    yield found
    pid = found.folder.running_pid()
    if pid and pid > 0:
        os.kill(pid, signal.SIGKILL)  # the collector this test started, by its id
    shutil.rmtree(runtime, ignore_errors=True)


def covered(events: list[Event]) -> set[str]:
    """The ids of the events some narrative covers (listed, or inside a folded range)."""
    ids = [e.id for e in events]
    found: set[str] = set()
    for event in events:
        if event.type != "narrative":
            continue
        found.update(event.data.get("covers") or [])
        span = event.data.get("covers_range")
        if span:
            found.update(i for i in ids if span[0] <= i <= span[-1])
    return found


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
