"""The webhook skill against a loopback HTTP server: retries, refusals, cancellation."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from monologue_skills.state import SkillState
from pytest_monologue import PluginSandbox

from monologue import SkillCall, SkillResult


@pytest.fixture
def skills_pm(monologue_plugins: PluginSandbox) -> PluginSandbox:
    """This distribution loaded through its real entry point, as a user's install finds it."""
    monologue_plugins.load("webhook")
    return monologue_plugins


def run(pm: PluginSandbox, name: str, state: SkillState | None = None, **args: Any) -> SkillResult:
    return pm.hooks.execute_skill(None, SkillCall(name=name, args=args, id="t"), state)


def test_only_this_skill_is_registered(skills_pm: PluginSandbox) -> None:
    assert {spec.name: spec.plugin for spec in skills_pm.hooks.skills().values()} == {
        "webhook": "webhook"
    }


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


def test_the_payload_is_redacted_before_it_leaves(
    skills_pm: PluginSandbox, hook_server: tuple[str, type[Hook]]
) -> None:
    url, handler = hook_server
    result = run(skills_pm, "webhook", url=url, text="deployed with password=Hq99hook")
    assert result.ok, result.error
    assert handler.bodies == [{"text": "deployed with password=[REDACTED]"}]


def test_a_connection_refused_at_first_is_retried_by_the_transport(
    skills_pm: PluginSandbox,
) -> None:
    import socket
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    handler = type("Handler", (Hook,), {"answers": [], "bodies": []})
    started: list[ThreadingHTTPServer] = []

    def listen_later() -> None:
        time.sleep(0.3)  # the first connection attempts are refused
        server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        started.append(server)
        server.serve_forever()

    threading.Thread(target=listen_later, daemon=True).start()
    try:
        result = run(
            skills_pm, "webhook", url=f"http://127.0.0.1:{port}/hook", text="up", retries=5
        )
    finally:
        while not started:
            time.sleep(0.05)
        started[0].shutdown()
        started[0].server_close()
    assert result.ok, result.error
    # One request reached the server: the retries were connection attempts, not re-sends.
    assert result.output == {"status": 200, "attempts": 1}
    assert handler.bodies == [{"text": "up"}]
