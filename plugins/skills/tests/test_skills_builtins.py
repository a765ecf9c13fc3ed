"""First-party skills: speak, notify, status, webhook (against a loopback HTTP server)."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from monologue_skills.state import SkillState

from monologue import SkillCall, SkillResult
from monologue.testing import PluginSandbox


def run(pm: PluginSandbox, name: str, state: SkillState | None = None, **args: Any) -> SkillResult:
    return pm.hooks.execute_skill(None, SkillCall(name=name, args=args, id="t"), state)


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_speak_writes_speech_with_espeak_ng(skills_pm: PluginSandbox, tmp_path: Path) -> None:
    wav = tmp_path / "said.wav"
    result = run(skills_pm, "speak", text="Tests pass.", wav=str(wav))
    assert result.ok, result.error
    assert wav.read_bytes()[:4] == b"RIFF" and wav.stat().st_size > 1000


def test_speak_without_espeak_ng_says_how_to_get_it(
    skills_pm: PluginSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    result = run(skills_pm, "speak", text="hello")
    assert not result.ok
    assert result.error == (
        "speak needs espeak-ng, which is not installed (Debian: apt-get install espeak-ng)"
    )


def test_notify_without_a_desktop_writes_to_stderr(
    skills_pm: PluginSandbox, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    result = run(skills_pm, "notify", title="build", message="tests pass")
    assert result.ok and result.output["channel"] == "stderr"
    assert capsys.readouterr().err == "[build] tests pass\n"


def test_status_board_accumulates_in_the_state(skills_pm: PluginSandbox) -> None:
    state = SkillState({"status": {"task": "old", "files_touched": ["a.py"]}})
    result = run(
        skills_pm,
        "status",
        state,
        task="fix login",
        files_touched=["a.py", "b.py"],
        test_outcome="failed",
        test_summary="2 failed",
    )
    board = {
        "task": "fix login",
        "files_touched": ["a.py", "b.py"],
        "last_test": {"outcome": "failed", "summary": "2 failed"},
    }
    assert result.ok and result.output == board
    assert state.changes == [{"op": "add", "path": "/status", "value": board}]


class Hook(BaseHTTPRequestHandler):
    answers: list[int] = []
    bodies: list[Any] = []

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        type(self).bodies.append(json.loads(self.rfile.read(length)))
        code = type(self).answers.pop(0) if type(self).answers else 200
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def hook_server() -> Iterator[tuple[str, type[Hook]]]:
    handler = type("Handler", (Hook,), {"answers": [], "bodies": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook", handler
    server.shutdown()
    server.server_close()


def test_webhook_retries_server_errors(
    skills_pm: PluginSandbox, hook_server: tuple[str, type[Hook]]
) -> None:
    url, handler = hook_server
    handler.answers = [503, 500]
    result = run(skills_pm, "webhook", url=url, text="I fixed the bug.")
    assert result.ok, result.error
    assert result.output == {"status": 200, "attempts": 3}
    assert handler.bodies == [{"text": "I fixed the bug."}] * 3


def test_webhook_gives_up_after_its_retries(
    skills_pm: PluginSandbox, hook_server: tuple[str, type[Hook]]
) -> None:
    url, handler = hook_server
    handler.answers = [502, 502, 502]
    result = run(skills_pm, "webhook", url=url, text="x", retries=2)
    assert not result.ok
    assert (
        result.error == f"webhook to {url} failed after 3 attempt(s): HTTP 502, HTTP 502, HTTP 502"
    )


def test_webhook_does_not_retry_a_refusal(
    skills_pm: PluginSandbox, hook_server: tuple[str, type[Hook]]
) -> None:
    url, handler = hook_server
    handler.answers = [404]
    result = run(skills_pm, "webhook", url=url, text="x")
    assert result.error == f"webhook to {url} failed after 1 attempt(s): HTTP 404"
    assert len(handler.bodies) == 1


def test_webhook_to_nothing_listening_fails_with_the_reason(skills_pm: PluginSandbox) -> None:
    result = run(skills_pm, "webhook", url="http://127.0.0.1:9/hook", text="x", retries=1)
    assert not result.ok
    assert "failed after 2 attempt(s)" in result.error and "refused" in result.error.lower()


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_speak_reports_an_espeak_ng_failure(skills_pm: PluginSandbox, tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "dir.wav"
    unwritable = run(skills_pm, "speak", text="hi", wav=str(target))
    assert not unwritable.ok
    assert unwritable.error == f"espeak-ng wrote no file at {target}: Can't write to: '{target}'"
    no_voice = run(skills_pm, "speak", text="hi", voice="zz-nope", wav=str(tmp_path / "v.wav"))
    assert no_voice.error == (
        "espeak-ng failed (1): Error: The specified espeak-ng voice does not exist."
    )


def test_notify_uses_the_desktop_when_there_is_one(
    skills_pm: PluginSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = tmp_path / "calls"
    fake = tmp_path / "bin" / "notify-send"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\nprintf "%s|" "$@" > {calls}\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    monkeypatch.setenv("DISPLAY", ":0")
    result = run(skills_pm, "notify", title="build", message="tests pass", urgency="low")
    assert result.ok and result.output["channel"] == "desktop"
    assert calls.read_text() == "-u|low|build|tests pass|"


def test_webhook_retries_stop_when_the_plan_is_cancelled(
    skills_pm: PluginSandbox, hook_server: tuple[str, type[Hook]]
) -> None:
    url, handler = hook_server
    handler.answers = [503] * 5
    state = SkillState()
    state.cancel.set()
    result = run(skills_pm, "webhook", state, url=url, text="x")
    assert result.error == f"webhook to {url} cancelled after 1 attempt(s)"
    assert len(handler.bodies) == 1
