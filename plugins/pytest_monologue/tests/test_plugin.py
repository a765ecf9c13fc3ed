"""pytest-monologue's pytest plugin: what a user's test suite gets by installing it."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

FIXTURES = ("monologue_plugins", "mock_narrator", "monologue_cli", "loopback_api")


def test_it_is_the_one_pytest11_entry_point_of_monologue() -> None:
    ours = [
        ep
        for ep in entry_points(group="pytest11")
        if ep.dist is not None and ep.dist.name.startswith(("monologue", "pytest-monologue"))
    ]
    assert [(ep.dist.name, ep.value) for ep in ours if ep.dist] == [
        ("pytest-monologue", "pytest_monologue.plugin")
    ]


def test_a_suite_with_no_conftest_gets_the_fixtures(tmp_path: Path) -> None:
    (tmp_path / "test_user.py").write_text(
        "def test_sandbox(monologue_plugins, mock_narrator):\n"
        "    mock_narrator.queue('I read it.')\n"
        "    with monologue_plugins.session('coder') as s:\n"
        "        s.tool_call('Read', {'file_path': 'README.md'})\n"
        "    assert mock_narrator.calls and mock_narrator.calls[0].reason == 'final'\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--fixtures", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    assert [name for name in FIXTURES if f"{name} --" not in listed.stdout] == []
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 passed" in ran.stdout


def test_the_plugin_loads_without_the_anthropic_extra() -> None:
    """Only the loopback server needs ``anthropic``, and only when it first answers."""
    code = (
        "import sys; sys.modules['anthropic'] = None\n"
        "import pytest_monologue.plugin\n"
        "from pytest_monologue.anthropic import LoopbackAPI\n"
        "with LoopbackAPI() as api: print(api.base_url.startswith('http://127.0.0.1:'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
