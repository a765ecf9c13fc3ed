"""A newcomer's path, on a fresh virtual environment: install the default set (and the web
viewer), replay a sample and record it, list the sessions, see them in the viewer (in
headless Chromium: the "no recordings yet" hint is hidden), then give each command one bad
input and get one line naming it, with the documented exit code (2 usage, 1 failure)."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_support import clean_environ, run_command

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "examples" / "sessions" / "fix-retry-limit.claude.jsonl"
CHROMIUM = Path("/usr/bin/chromium")
# monologue-default and what it requires (none of them is on the package index), and the
# web viewer, installed on its own.
DISTRIBUTIONS = [
    ROOT,
    *(
        ROOT / "plugins" / name
        for name in (
            "default",
            "template",
            "buffer",
            "gate",
            "recorder",
            "claude",
            "sweagent",
            "openhands",
            "otel",
            "web",
        )
    ),
]


def _uv() -> str | None:
    beside = Path(sys.executable).with_name("uv")
    return str(beside) if beside.exists() else shutil.which("uv")


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with monologue-default (and monologue-web) installed."""
    uv = _uv()
    if uv is None:
        pytest.skip("needs uv (scripts/bootstrap installs it) to build a fresh environment")
    folder = tmp_path_factory.mktemp("newcomer") / "venv"
    env = clean_environ()
    made = run_command([uv, "venv", "--quiet", "--python", sys.executable, str(folder)], env)
    assert made.returncode == 0, made.stderr
    python = folder / "bin" / "python"
    installed = run_command(
        [uv, "pip", "install", "--quiet", "--python", str(python), *map(str, DISTRIBUTIONS)],
        env,
        timeout=600,
    )
    assert installed.returncode == 0, installed.stderr
    return folder


@pytest.fixture
def user(tmp_path: Path) -> dict[str, str]:
    """A user's environment: nothing configured, data and caches under the test's folder."""
    return clean_environ(
        MONOLOGUE_NO_CONFIG_FILE="1",
        MONOLOGUE_DATA_DIR=str(tmp_path / "data"),
        MONOLOGUE_CACHE_DIR=str(tmp_path / "cache"),
    )


def monologue(venv: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run_command([str(venv / "bin" / "monologue"), *args], env, timeout=120)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def viewer(venv: Path, user: dict[str, str]) -> Iterator[str]:
    """``monologue serve`` from the fresh environment; its URL."""
    port = free_port()
    server = subprocess.Popen(
        [str(venv / "bin" / "monologue"), "serve", "--port", str(port)],
        env=user,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_install_replay_list_and_view(venv: Path, user: dict[str, str], viewer: str) -> None:
    replayed = monologue(venv, user, "replay", "--record", str(SAMPLE))
    assert replayed.returncode == 0, replayed.stderr
    assert "claude: I" in replayed.stdout  # narrated in the first person, offline
    assert "no narrator plugin" not in replayed.stderr

    listed = monologue(venv, user, "sessions", "--json")
    assert listed.returncode == 0, listed.stderr
    [row] = json.loads(listed.stdout)
    assert row["source"] == "claude" and row["narratives"] >= 1
    assert row["title"].startswith("The HTTP client always gives up after 3 attempts")
    assert monologue(venv, user, "log", row["id"][:12]).returncode == 0

    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is missing: scripts/system-packages installs it")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"]
        )
        try:
            page = browser.new_page()
            page.goto(viewer)
            page.wait_for_selector(f"[data-id='{row['id']}']", timeout=20_000)
            # The hint is for an empty list only (issue 25: it showed above the sessions).
            assert not page.is_visible("#list-empty")
        finally:
            browser.close()


@pytest.mark.parametrize(
    ("args", "code", "start"),
    [
        (["replay", "missing.jsonl"], 1, "monologue: missing.jsonl: no such file"),
        (["replay", "--speed", "fast", "x"], 2, "monologue replay: Invalid value for '--speed'"),
        (["watch", "--timeout", "1", "/"], 1, "monologue: /: is a directory"),
        (["log", "NOSUCHSESSION"], 1, "monologue: no recorded session 'NOSUCHSESSION'"),
        (["sessions", "-n", "many"], 2, "monologue sessions: Invalid value for '-n'"),
        (["plugins", "--hook", "nope"], 2, "monologue plugins: Invalid value for --hook"),
        (["config", "--jsn"], 2, "monologue config: No such option '--jsn'."),
        (["serve", "--port", "99999"], 2, "monologue serve: Invalid value for '--port'"),
        (["replya"], 2, "monologue: No such command 'replya'."),
    ],
)
def test_each_command_fails_in_one_line(
    venv: Path, user: dict[str, str], args: list[str], code: int, start: str
) -> None:
    result = monologue(venv, user, *args)
    assert result.returncode == code, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(start), lines[0]
