"""Shared fixtures: the recorder loaded through its entry point into an isolated plugin
manager, a record directory of the test's own, and the ``monologue`` CLI run in-process."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from monologue.testing import PluginSandbox

HERE = Path(__file__).parent
EXAMPLES = HERE.parents[2] / "examples" / "sessions"


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """The CLI configures the ``monologue`` logger for a terminal; undo it after each test."""
    logger = logging.getLogger("monologue")
    saved = (logger.handlers[:], logger.level, logger.propagate)
    yield
    logger.handlers[:], logger.level, logger.propagate = saved


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


@dataclass
class Cli:
    """``monologue`` run in-process against the test's plugin manager."""

    def __call__(self, *args: str) -> Result:
        from monologue.cli import cli

        return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def run_cli(recorder: PluginSandbox) -> Cli:
    return Cli()


def recording_of(record_dir: Path, session_id: str) -> Path:
    return record_dir / f"{session_id}.jsonl"


def json_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def narrated_subprocess(
    *args: str, env: dict[str, str] | None = None, **kwargs: Any
) -> subprocess.Popen[str]:
    """``monologue ARGS`` in a real process, narrated by the echo narrator."""
    return subprocess.Popen(
        [sys.executable, str(HERE / "recorder_echo_narrator.py"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=subprocess_env(env),
        **kwargs,
    )


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
