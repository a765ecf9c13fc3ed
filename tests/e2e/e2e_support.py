"""Helpers the end-to-end tests share: a clean environment and a way to run commands.

These tests run in the ``e2e`` tox environment, where every distribution is installed, and
they run programs the way a user does: as subprocesses, in an environment with no
``MONOLOGUE_*`` settings, no API key and no config file, writing under the test's folder.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def clean_environ(**extra: str) -> dict[str, str]:
    """``os.environ`` without monologue settings or an Anthropic key, plus ``extra``."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("MONOLOGUE_") and key != "ANTHROPIC_API_KEY"
    }
    env.update(extra)
    return env


def run_command(
    args: list[str], env: dict[str, str], cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run a program to completion and capture its text output (the caller checks the code)."""
    return subprocess.run(
        args, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )
