"""The narrator against a loopback Messages API that succeeds, limits, fails, stalls, garbles.

For each case: what the agent sees (it always completes), which requests were made (what was
retried), and what was logged.
"""

from __future__ import annotations

import logging
import re
import time

import pytest
from anthropic_fixtures import Observer
from monologue_anthropic.transport import NarrationError
from pytest_monologue import PluginSandbox
from pytest_monologue.anthropic import LoopbackAPI, Reply, refused_base_url

from monologue.events import Event

FINAL_TEXT = "I finished reading the README."


def run_agent(sandbox: PluginSandbox, **config: object) -> tuple[list[Event], object]:
    """Two events (one narration turn), then the end of the session (the final turn)."""
    narratives: list[Event] = []
    settings: dict[str, object] = {"max_buffer_size": 2, "min_buffer_size": 1}
    settings.update(config)
    with sandbox.session("coder", on_narrative=narratives.append, **settings) as session:
        call = session.tool_call("Read", {"file_path": "README.md"})
        session.tool_result(call.data["tool_use_id"], "# monologue\nNarrates agents.")
        assert session.wait_idle(timeout=15)
    return narratives, session.stats


def warnings_of(caplog: pytest.LogCaptureFixture, logger: str) -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.name == logger and r.levelno >= logging.WARNING
    ]


def test_success_delivers_the_reply_with_model_and_token_usage(
    monologue_plugins: PluginSandbox,
    anthropic_narrator: LoopbackAPI,
    caplog: pytest.LogCaptureFixture,
) -> None:
    anthropic_narrator.script(Reply.ok("  I'm reading the README to see what this project does.\n"))

    narratives, stats = run_agent(monologue_plugins)

    (request,) = anthropic_narrator.requests
    (narrative,) = narratives
    assert narrative.text == "I'm reading the README to see what this project does."
    assert narrative.data["narrator"] == "anthropic"
    assert narrative.data["model"] == request.body["model"]  # type: ignore[index]
    usage = narrative.data["usage"]
    assert usage["input_tokens"] == request.input_tokens > 0
    assert usage["output_tokens"] > 0
    assert usage["cache_read_input_tokens"] == 0
    sent_key = request.headers.get("x-api-key") or request.headers["authorization"]
    assert sent_key.endswith("loopback-test-key")  # newer SDKs send it as a bearer token
    assert stats.narrator_failures == 0  # type: ignore[attr-defined]
    assert warnings_of(caplog, "monologue.anthropic") == []


def test_429_is_retried_after_the_wait_retry_after_asks(
    monologue_plugins: PluginSandbox,
    anthropic_narrator: LoopbackAPI,
    caplog: pytest.LogCaptureFixture,
) -> None:
    anthropic_narrator.script(
        Reply.rate_limited(retry_after=0.3), Reply.ok("I'm reading the README.")
    )

    narratives, stats = run_agent(monologue_plugins)

    first, second = anthropic_narrator.requests
    assert second.at - first.at >= 0.3
    assert second.body == first.body
    assert [n.text for n in narratives] == ["I'm reading the README."]
    assert stats.narrator_failures == 0  # type: ignore[attr-defined]
    (logged,) = warnings_of(caplog, "monologue.anthropic")
    assert "HTTP 429 rate_limit_error" in logged
    assert "retry 1/2 in 0.3 s (as retry-after asks)" in logged


def test_500_is_retried_with_backoff_then_reported_and_the_agent_goes_on(
    monologue_plugins: PluginSandbox,
    anthropic_narrator: LoopbackAPI,
    observer: Observer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    anthropic_narrator.script(*[Reply.server_error()] * 3, Reply.ok(FINAL_TEXT))

    narratives, stats = run_agent(monologue_plugins, anthropic_backoff_s=0.05)

    requests = anthropic_narrator.requests
    assert len(requests) == 4  # the turn: first try and two retries; then the final turn
    assert requests[2].at - requests[1].at >= 0.1  # the backoff doubled: 0.05 s, 0.1 s
    (suppressed,) = observer.of_type("narration_suppressed")
    assert "HTTP 500 api_error" in suppressed.data["reason"]
    assert "after 3 attempts" in suppressed.data["reason"]
    assert "2 event(s) kept" in suppressed.data["reason"]
    # The kept events are narrated by the final turn: nothing was lost.
    (narrative,) = narratives
    assert narrative.text == FINAL_TEXT
    assert narrative.data["reason"] == "final"
    kept = [e.id for e in observer.events if e.type in ("tool_call", "tool_result")]
    assert narrative.data["covers"][:2] == kept
    assert stats.narrator_failures == 1  # type: ignore[attr-defined]
    logged = warnings_of(caplog, "monologue.anthropic")
    assert [m.split("; ")[-1] for m in logged] == ["retry 1/2 in 0.05 s", "retry 2/2 in 0.1 s"]
    # Giving up is the core's one WARNING line: what failed and what happens next.
    (failure,) = warnings_of(caplog, "monologue.worker")
    assert failure.startswith("plugin 'anthropic' raised in narrate: NarrationError: HTTP 500")
    assert "2 event(s) kept; narration goes on" in failure
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING and r.exc_info]


def test_529_overloaded_is_retried(
    monologue_plugins: PluginSandbox,
    anthropic_narrator: LoopbackAPI,
    caplog: pytest.LogCaptureFixture,
) -> None:
    anthropic_narrator.script(Reply.overloaded(), Reply.ok("I'm reading the README."))

    narratives, _ = run_agent(monologue_plugins, anthropic_backoff_s=0.05)

    assert len(anthropic_narrator.requests) == 2
    assert [n.text for n in narratives] == ["I'm reading the README."]
    (logged,) = warnings_of(caplog, "monologue.anthropic")
    assert "HTTP 529 overloaded_error" in logged
    assert "retry 1/2" in logged


@pytest.mark.parametrize(
    "case",
    [
        (Reply.error(400, "max_tokens: must be positive"), "HTTP 400 invalid_request_error"),
        (Reply.error(401, "invalid x-api-key"), "HTTP 401 authentication_error"),
        (Reply.error(408, "request timeout", error_type="timeout_error"), "HTTP 408"),
        (Reply.malformed(), "malformed response"),
        (Reply.malformed(b"<html>502 Bad Gateway</html>"), "malformed response"),
        (Reply.malformed(b'{"id": "msg_1", "usage": {}}'), "malformed response"),
    ],
)
def test_other_failures_are_not_retried(
    monologue_plugins: PluginSandbox,
    anthropic_narrator: LoopbackAPI,
    observer: Observer,
    caplog: pytest.LogCaptureFixture,
    case: tuple[Reply, str],
) -> None:
    reply, problem = case
    anthropic_narrator.script(reply, Reply.ok(FINAL_TEXT))

    narratives, stats = run_agent(monologue_plugins)

    assert len(anthropic_narrator.requests) == 2  # the failed turn once, then the final turn
    (suppressed,) = observer.of_type("narration_suppressed")
    assert problem in suppressed.data["reason"]
    assert [n.text for n in narratives] == [FINAL_TEXT]
    assert stats.narrator_failures == 1  # type: ignore[attr-defined]
    assert warnings_of(caplog, "monologue.anthropic") == []  # one line, the core's
    (logged,) = warnings_of(caplog, "monologue.worker")
    assert problem in logged
    assert "after 1 attempt" in logged


def test_a_reply_slower_than_the_timeout_is_abandoned(
    monologue_plugins: PluginSandbox,
    anthropic_narrator: LoopbackAPI,
    observer: Observer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    anthropic_narrator.script(Reply.slow(5.0, "too late"), Reply.ok(FINAL_TEXT))
    started = time.monotonic()

    narratives, stats = run_agent(monologue_plugins, narrate_timeout_s=1.0)

    assert time.monotonic() - started < 4.5  # never waited for the slow reply
    assert len(anthropic_narrator.requests) == 2  # a timeout is not retried
    (suppressed,) = observer.of_type("narration_suppressed")
    assert "no answer from http://127.0.0.1:" in suppressed.data["reason"]
    assert re.search(
        r"in 0\.[6-9]\d? s, the time left before narrate_timeout_s", suppressed.data["reason"]
    )
    assert [n.text for n in narratives] == [FINAL_TEXT]
    assert stats.narrator_failures == 1  # type: ignore[attr-defined]
    (logged,) = warnings_of(caplog, "monologue.worker")
    assert "no answer" in logged


def test_connection_refused_is_reported_and_the_agent_goes_on(
    monologue_plugins: PluginSandbox,
    observer: Observer,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monologue_plugins.load("anthropic")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "loopback-test-key")
    url = refused_base_url()

    narratives, stats = run_agent(monologue_plugins, narrator="anthropic", anthropic_base_url=url)

    assert narratives == []
    first, final = observer.of_type("narration_suppressed")
    assert f"cannot connect to {url}/v1/messages" in first.data["reason"]
    assert "kept" in first.data["reason"]
    assert "not narrated" in final.data["reason"]  # the final turn failed too: nothing kept
    assert stats.narrator_failures == 2  # type: ignore[attr-defined]
    logged = warnings_of(caplog, "monologue.worker")
    assert len(logged) == 2
    assert all("(not retried)" in m for m in logged)


def test_a_retry_after_longer_than_the_backoff_bound_is_not_waited(
    monologue_plugins: PluginSandbox,
    anthropic_narrator: LoopbackAPI,
    observer: Observer,
) -> None:
    anthropic_narrator.script(Reply.rate_limited(retry_after=60), Reply.ok(FINAL_TEXT))
    started = time.monotonic()

    run_agent(monologue_plugins, anthropic_max_backoff_s=2)

    assert time.monotonic() - started < 10
    assert len(anthropic_narrator.requests) == 2
    (suppressed,) = observer.of_type("narration_suppressed")
    assert (
        "retry-after 60 s is longer than anthropic_max_backoff_s (2 s)" in suppressed.data["reason"]
    )


def test_a_retry_is_never_waited_past_the_deadline(
    monologue_plugins: PluginSandbox,
    anthropic_narrator: LoopbackAPI,
    observer: Observer,
) -> None:
    anthropic_narrator.script(Reply.rate_limited(retry_after=1.5), Reply.ok(FINAL_TEXT))

    run_agent(monologue_plugins, narrate_timeout_s=1.0)

    assert len(anthropic_narrator.requests) == 2
    (suppressed,) = observer.of_type("narration_suppressed")
    assert "would pass the narration deadline" in suppressed.data["reason"]


def test_no_retries_when_max_retries_is_zero(
    monologue_plugins: PluginSandbox, anthropic_narrator: LoopbackAPI, observer: Observer
) -> None:
    anthropic_narrator.script(Reply.overloaded(), Reply.ok(FINAL_TEXT))

    run_agent(monologue_plugins, anthropic_max_retries=0)

    assert len(anthropic_narrator.requests) == 2
    (suppressed,) = observer.of_type("narration_suppressed")
    assert "HTTP 529" in suppressed.data["reason"]
    assert "after 1 attempt)" in suppressed.data["reason"]


def test_narration_error_is_the_raised_type(anthropic_narrator: LoopbackAPI) -> None:
    """The transport raises NarrationError (what the core records), chained to the SDK's."""
    import anthropic
    from monologue_anthropic.settings import AnthropicSettings
    from monologue_anthropic.transport import create_message

    anthropic_narrator.script(Reply.error(403, "forbidden"))
    request = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}
    with pytest.raises(NarrationError, match="HTTP 403 permission_error") as caught:
        create_message(AnthropicSettings(), "k", request, time.monotonic() + 5)
    assert isinstance(caught.value.__cause__, anthropic.PermissionDeniedError)
    with pytest.raises(NarrationError, match="no time left for a request"):
        create_message(AnthropicSettings(), "k", request, time.monotonic() - 1)
    assert len(anthropic_narrator.requests) == 1


def test_a_key_removed_after_the_start_fails_each_narration(
    monologue_plugins: PluginSandbox,
    anthropic_narrator: LoopbackAPI,
    observer: Observer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with monologue_plugins.session("coder", max_buffer_size=2) as session:
        monkeypatch.delenv("ANTHROPIC_API_KEY")
        call = session.tool_call("Read", {"file_path": "README.md"})
        session.tool_result(call.data["tool_use_id"], "# monologue")
        assert session.wait_idle(timeout=10)

    assert anthropic_narrator.requests == []
    reasons = [e.data["reason"] for e in observer.of_type("narration_suppressed")]
    assert reasons
    assert all("ANTHROPIC_API_KEY is not set any more" in reason for reason in reasons)
