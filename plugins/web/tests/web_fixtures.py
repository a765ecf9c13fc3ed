"""Shared fixtures: recordings written in the documented format, a real uvicorn server on
127.0.0.1 in a background thread, and headless Debian chromium driven by Playwright."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from monologue_web.app import WebSettings, create_app

from monologue.events import Event, RecordingHeader

HERE = Path(__file__).parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
START = datetime(2026, 11, 21, 22, 48, 17, tzinfo=UTC)


class Recording:
    """A recording file written line by line, as the recorder writes it."""

    def __init__(self, folder: Path, session_id: str, agent: str, started: datetime) -> None:
        self.path = folder / f"{session_id}.jsonl"
        self.session_id, self.agent = session_id, agent
        self.clock = started
        header = RecordingHeader(session_id=session_id, agent=agent, started_at=started)
        self.path.write_text(header.to_json() + "\n")

    def add(self, type: str, data: dict[str, Any], *, agent: str | None = None) -> Event:
        self.clock += timedelta(seconds=1)
        event = Event(
            type=type,
            data=data,
            ts=self.clock,
            session_id=self.session_id,
            agent=agent or self.agent,
            visibility="user" if type == "narrative" else "internal",
        )
        with self.path.open("a") as stream:
            stream.write(event.to_json() + "\n")
        return event

    def tool_step(
        self, tool: str, tool_input: dict[str, Any], output: Any, **kw: Any
    ) -> list[Event]:
        call = self.add(
            "tool_call",
            {"tool_name": tool, "tool_use_id": f"tu{self.clock.timestamp()}", "input": tool_input},
        )
        result = self.add(
            "tool_result",
            {"tool_use_id": call.data["tool_use_id"], "tool_name": tool, "output": output, **kw},
        )
        return [call, result]

    def narrate(self, text: str, covers: list[Event]) -> Event:
        return self.add(
            "narrative",
            {
                "text": text,
                "narrator": "template",
                "reason": "buffer",
                "covers": [e.id for e in covers],
            },
        )


@pytest.fixture
def record_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    folder.mkdir()
    return folder


@pytest.fixture
def recording(record_dir: Path) -> Callable[..., Recording]:
    def make(
        session_id: str = "01K9Z8M2Q4T6V8X0Z2B4D6F8H0",
        agent: str = "coder",
        started: datetime = START,
    ) -> Recording:
        return Recording(record_dir, session_id, agent, started)

    return make


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """A real uvicorn server in a thread; ``url(path)`` is an address on it."""

    def __init__(self, settings: WebSettings) -> None:
        import uvicorn

        self.port = free_port()
        config = uvicorn.Config(
            create_app(settings),
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            # Open event streams are cut after this, then the application shuts down.
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    def __enter__(self) -> Server:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)

    @property
    def loop_thread(self) -> int | None:
        """The id of the thread running the server's event loop."""
        return self._thread.ident

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture
def serve(record_dir: Path) -> Iterator[Callable[..., Server]]:
    """Start a server on ``record_dir`` (settings overridable); stopped after the test."""
    started: list[Server] = []

    def start(**overrides: Any) -> Server:
        settings = WebSettings(record_dir=record_dir, list_poll_s=0.2, **overrides)
        server = Server(settings).__enter__()
        started.append(server)
        return server

    yield start
    for server in started:
        server.__exit__()


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Debian's headless chromium, driven by Playwright (no browser download)."""
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is missing: scripts/system-packages installs it")
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 860},
        )
        yield context
        context.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    page = browser.new_page()
    page.set_default_timeout(15_000)
    yield page
    page.close()


def agent_env(record_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MONOLOGUE_")}
    env.update(
        {
            "MONOLOGUE_NO_CONFIG_FILE": "1",
            "MONOLOGUE_RECORD_DIR": str(record_dir),
            "MONOLOGUE_LOAD_PLUGINS": "monologue-recorder,monologue-template,monologue-buffer",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def start_agent(record_dir: Path, *args: str) -> subprocess.Popen[str]:
    """The live agent (web_agent_process.py) in its own process."""
    return subprocess.Popen(
        [sys.executable, str(HERE / "web_agent_process.py"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=agent_env(record_dir),
    )


def monologue_exe() -> str:
    found = shutil.which("monologue", path=str(Path(sys.executable).parent))
    assert found is not None
    return found
