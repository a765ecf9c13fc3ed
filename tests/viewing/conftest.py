"""Fixtures of the viewing tests (replay, watch, log): a throwaway recorder, a record
directory of the test's own, and the ``monologue`` CLI run in-process."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_monologue import PluginSandbox
from viewing_support import Cli, LineRecorder


@pytest.fixture
def recorder(
    monologue_plugins: PluginSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> PluginSandbox:
    """A throwaway recorder registered, recording into ``tmp_path / "sessions"``."""
    monologue_plugins.register(LineRecorder(), "line-recorder")
    monkeypatch.setenv("MONOLOGUE_RECORD_DIR", str(tmp_path / "sessions"))
    return monologue_plugins


@pytest.fixture
def record_dir(recorder: PluginSandbox, tmp_path: Path) -> Path:
    return tmp_path / "sessions"


@pytest.fixture
def run_cli(recorder: PluginSandbox, monologue_cli: Cli) -> Cli:
    """``monologue`` run in-process, with the throwaway recorder registered."""
    return monologue_cli
