"""Shared fixtures: the recorder loaded through its entry point into an isolated plugin
manager, a record directory of the test's own, and the ``monologue`` CLI run in-process."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from pytest_monologue import PluginSandbox

HERE = Path(__file__).parent
EXAMPLES = HERE.parents[2] / "examples" / "sessions"


@pytest.fixture
def recorder(
    monologue_plugins: PluginSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> PluginSandbox:
    """monologue-recorder loaded, recording into ``tmp_path / "sessions"``."""
    monologue_plugins.load("recorder")
    monkeypatch.setenv("MONOLOGUE_RECORD_DIR", str(tmp_path / "sessions"))
    return monologue_plugins


@pytest.fixture
def record_dir(recorder: PluginSandbox, tmp_path: Path) -> Path:
    return tmp_path / "sessions"


Cli = Callable[..., Result]
"""The ``monologue_cli`` fixture: ``monologue ARGS`` run in-process."""


@pytest.fixture
def run_cli(recorder: PluginSandbox, monologue_cli: Cli) -> Cli:
    """``monologue`` run in-process, with the recorder loaded."""
    return monologue_cli


def recording_of(record_dir: Path, session_id: str) -> Path:
    return record_dir / f"{session_id}.jsonl"


def json_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def subprocess_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MONOLOGUE_")}
    env.update({"MONOLOGUE_NO_CONFIG_FILE": "1", "PYTHONUNBUFFERED": "1"})
    env.update(extra or {})
    return env


def wait_for(condition: Callable[[], bool], timeout: float = 15.0) -> bool:
    """Poll ``condition`` until it holds (generous timeout: the machine is shared)."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()
