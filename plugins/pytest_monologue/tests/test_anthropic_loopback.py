"""The loopback Messages API server itself (its users rely on these behaviours)."""

from __future__ import annotations

import http.client
import json
import socket
import time
from typing import Any

import anthropic
import pytest
from pytest_monologue.anthropic import (
    CHARS_PER_TOKEN,
    LoopbackAPI,
    Reply,
    estimate_tokens,
    refused_base_url,
    request_text,
)


def post(api: LoopbackAPI, path: str, body: bytes) -> tuple[int, dict[str, object]]:
    conn = http.client.HTTPConnection("127.0.0.1", api.port, timeout=5)
    try:
        conn.request("POST", path, body=body, headers={"content-type": "application/json"})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def test_input_tokens_are_a_documented_estimate(loopback_api: LoopbackAPI) -> None:
    client = anthropic.Anthropic(api_key="k", base_url=loopback_api.base_url, max_retries=0)
    system = "s" * 41
    message = client.messages.create(
        model="m",
        max_tokens=10,
        system=system,
        messages=[
            {"role": "user", "content": "u" * 80},
            {"role": "assistant", "content": [{"type": "text", "text": "a" * 3}]},
        ],
    )

    (request,) = loopback_api.requests
    assert (
        request.input_tokens == message.usage.input_tokens == -(-(41 + 80 + 3) // CHARS_PER_TOKEN)
    )
    assert message.usage.output_tokens == estimate_tokens(message.content[0].text)  # type: ignore[union-attr]
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcde") == 2


def test_request_text_counts_tools_and_tool_traffic() -> None:
    body = {
        "system": [{"type": "text", "text": "sys"}],
        "messages": [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t", "name": "Read", "input": {"p": 1}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t", "content": "out"}],
            },
        ],
        "tools": [{"name": "Read"}],
    }
    assert request_text(body) == "sys" + 'Read{"p": 1}' + "out" + '[{"name": "Read"}]'


def test_scripted_replies_then_the_default(loopback_api: LoopbackAPI) -> None:
    client = anthropic.Anthropic(api_key="k", base_url=loopback_api.base_url, max_retries=0)
    loopback_api.script(Reply.ok("first"), Reply.ok("second", model="claude-reported"))
    ask: dict[str, Any] = {
        "model": "claude-asked",
        "max_tokens": 5,
        "messages": [{"role": "user", "content": "x"}],
    }

    replies = [client.messages.create(**ask) for _ in range(3)]

    assert [r.content[0].text for r in replies] == [
        "first",
        "second",
        loopback_api.default_text,
    ]
    assert [r.model for r in replies] == ["claude-asked", "claude-reported", "claude-asked"]
    assert loopback_api.pending_replies == 0
    assert [r.number for r in loopback_api.requests] == [1, 2, 3]


def test_responder_answers_unscripted_requests(loopback_api: LoopbackAPI) -> None:
    client = anthropic.Anthropic(api_key="k", base_url=loopback_api.base_url, max_retries=0)
    loopback_api.responder = lambda request: Reply.ok(f"request {request.number}")

    message = client.messages.create(
        model="m", max_tokens=5, messages=[{"role": "user", "content": "x"}]
    )

    assert message.content[0].text == "request 1"  # type: ignore[union-attr]


def test_other_paths_and_bodies_get_api_errors(loopback_api: LoopbackAPI) -> None:
    loopback_api.script(Reply.ok("kept for the right path"))

    assert post(loopback_api, "/v1/complete", b"{}")[0] == 404
    status, body = post(loopback_api, "/v1/messages", b"not json")
    assert status == 400
    assert body["error"] == {
        "type": "invalid_request_error",
        "message": "the request body is not a JSON object",
    }
    assert loopback_api.pending_replies == 1  # a wrong path does not use up the script
    assert [r.body for r in loopback_api.requests] == [{}, None]


def test_stop_ends_delayed_replies_at_once() -> None:
    api = LoopbackAPI().start()
    api.script(Reply.slow(30))
    sock = socket.create_connection(("127.0.0.1", api.port), timeout=5)
    body = b'{"model": "m"}'
    sock.sendall(
        b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)
    )
    assert api.wait_for_requests(1, timeout=5)

    started = time.monotonic()
    api.stop()

    assert time.monotonic() - started < 5
    assert sock.recv(100) == b""  # closed without an answer
    sock.close()
    with pytest.raises(RuntimeError, match="not running"):
        _ = api.base_url


def test_refused_base_url_refuses() -> None:
    host, port = refused_base_url().removeprefix("http://").split(":")
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((host, int(port)), timeout=5)


def test_the_loopback_kit_needs_no_pytest() -> None:
    """Benchmarks and development scripts run the server without pytest installed."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['pytest'] = None\n"
        "from pytest_monologue.anthropic import LoopbackAPI, Reply\n"
        "with LoopbackAPI() as api: print(api.base_url.startswith('http://127.0.0.1:'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
