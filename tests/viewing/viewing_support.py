"""Helpers of the viewing tests: a throwaway recorder writing monologue's format with the
core's own helpers (no recorder plugin is installed in the core's environment), and the
echo-narrated CLI in a real process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import Result

from monologue import hookimpl
from monologue.recording import event_line, header_line, record_setting, recording_path

HERE = Path(__file__).parent
EXAMPLES = HERE.parents[1] / "examples" / "sessions"


class LineRecorder:
    """Writes each session's recording synchronously, one line per event, as the recorder
    plugin would (live sessions yes, replays only when ``record`` is true)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    @hookimpl
    def on_session_start(self, session: Any) -> None:
        setting = record_setting(session.config)
        if setting is False or (setting is None and "replay_of" in session.meta):
            return
        path = recording_path(session.config, session.id)
        path.parent.mkdir(parents=True, exist_ok=True)
        session.state["line-recorder"] = path
        self._append(path, header_line(session))

    @hookimpl
    def on_event(self, session: Any, event: Any) -> None:
        path = session.state.get("line-recorder")
        if path is not None:
            self._append(path, event_line(event))

    def _append(self, path: Path, line: str) -> None:
        with self._lock, path.open("a", encoding="utf-8") as stream:
            stream.write(line + "\n")


Cli = Callable[..., Result]
"""The ``monologue_cli`` fixture: ``monologue ARGS`` run in-process."""


def recording_of(record_dir: Path, session_id: str) -> Path:
    return record_dir / f"{session_id}.jsonl"


def json_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def narrated_subprocess(*args: str, stdin: int | None = None) -> subprocess.Popen[str]:
    """``monologue ARGS`` in a real process with no installed plugin loaded, narrated by the
    echo narrator (``stdin``: ``subprocess.PIPE`` to write its standard input).

    Started with SIGINT ignored, as from a background job (``scripts/test &``): the child
    sets it back to the default, so a test's Ctrl-C works however the suite was launched."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MONOLOGUE_")}
    env.update(
        {"MONOLOGUE_NO_CONFIG_FILE": "1", "PYTHONUNBUFFERED": "1", "MONOLOGUE_LOAD_PLUGINS": ""}
    )
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return subprocess.Popen(
            [sys.executable, str(HERE / "echo_narrator.py"), *args],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
    finally:
        signal.signal(signal.SIGINT, previous)
