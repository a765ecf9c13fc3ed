"""The Haiku controller asked by monologue-gate's real ``gate = "llm"`` mode, through the
real anthropic SDK and the loopback Messages API server: valid, malformed and late answers."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from anthropic_fixtures import Observer
from monologue_anthropic.controller import TOOL_NAME
from pytest_monologue import MockNarrator, PluginSandbox
from pytest_monologue.anthropic import LoopbackAPI, Reply

from monologue import Session

SECRET = "sk-ant-api03-secretsecretsecretsecret"
SPEAK = {
    "speak_now": True,
    "actions": [{"type": "narrate", "reason": "the agent found the retry limit"}],
    "notes": "a finding worth telling",
}


def decided(answer: Any) -> Reply:
    return Reply.blocks(
        {"type": "tool_use", "id": "toolu_1", "name": TOOL_NAME, "input": answer},
        stop_reason="tool_use",
    )


@pytest.fixture
def gated(
    monologue_plugins: PluginSandbox, loopback_api: LoopbackAPI, mock_narrator: MockNarrator
) -> PluginSandbox:
    monologue_plugins.load("anthropic", "gate")
    return monologue_plugins


def two_reads(sandbox: PluginSandbox, **config: Any) -> Session:
    """Two held events: the checkpoint (min_buffer_size = 2) where the controller is asked."""
    settings: dict[str, Any] = {
        "gate": "llm",
        "min_buffer_size": 2,
        "max_buffer_size": 50,
        "idle_interval_s": 0,
        **config,
    }
    with sandbox.session("coder", **settings) as s:
        call = s.tool_call("Bash", {"command": f"grep -rn max_retries --token {SECRET}"})
        s.tool_result(call.data["tool_use_id"], "src/client.py:12: max_retries = 3")
        assert s.wait_idle(5)
    return s


def suppressions(observer: Observer) -> list[str]:
    return [event.data["reason"] for event in observer.of_type("narration_suppressed")]


def test_a_decision_to_speak_is_followed_and_names_the_controllers_reason(
    gated: PluginSandbox, loopback_api: LoopbackAPI, mock_narrator: MockNarrator, observer: Observer
) -> None:
    loopback_api.script(decided(SPEAK))
    two_reads(gated)
    assert mock_narrator.reasons == ["gate: controller: the agent found the retry limit"]
    assert mock_narrator.calls[0].types == ["tool_call", "tool_result"]
    assert suppressions(observer) == []
    (request,) = loopback_api.requests
    body = request.body or {}
    assert body["tool_choice"] == {"type": "tool", "name": TOOL_NAME}
    schema = body["tools"][0]["input_schema"]
    assert schema["required"] == ["speak_now"]
    assert set(schema["properties"]) == {"speak_now", "actions", "notes"}
    assert "## Event Focus" in request.user_text and "max_retries" in request.user_text
    assert "secretsecret" not in json.dumps(body)


def test_a_decision_to_hold_is_recorded_with_the_controllers_notes(
    gated: PluginSandbox, loopback_api: LoopbackAPI, mock_narrator: MockNarrator, observer: Observer
) -> None:
    loopback_api.script(decided({"speak_now": False, "actions": [], "notes": "routine search"}))
    two_reads(gated)
    assert mock_narrator.reasons == ["final"]
    assert suppressions(observer) == [
        "llm: routine search (2 events held since the session started)"
    ]
    assert observer.of_type("narration_suppressed")[0].data["gate"] == "llm"


def test_a_json_text_reply_is_read_as_the_decision(
    gated: PluginSandbox, loopback_api: LoopbackAPI, mock_narrator: MockNarrator
) -> None:
    loopback_api.script(Reply.ok(json.dumps({"speak_now": True, "notes": "worth a word"})))
    two_reads(gated)
    assert mock_narrator.reasons == ["gate: controller: worth a word"]


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (
            decided({"speak_now": "maybe"}),
            "llm: malformed answer from anthropic: speak_now: Input should be a valid boolean "
            "(got {'speak_now': 'maybe'})",
        ),
        (
            decided({"speak_now": True, "mood": "chatty"}),
            "llm: malformed answer from anthropic: mood: Extra inputs are not permitted",
        ),
        (
            Reply.ok("You should probably speak now."),
            "llm: malformed answer from anthropic: no submit_decision call and no JSON object, "
            "but 'You should probably speak now.'",
        ),
    ],
)
def test_a_malformed_answer_holds_and_the_suppression_says_what_is_wrong(
    gated: PluginSandbox,
    loopback_api: LoopbackAPI,
    mock_narrator: MockNarrator,
    observer: Observer,
    *,
    reply: Reply,
    why: str,
) -> None:
    loopback_api.script(reply)
    two_reads(gated)
    assert mock_narrator.reasons == ["final"]
    [reason] = suppressions(observer)
    assert reason.startswith(why)
    assert reason.endswith("(2 events held since the session started)")


def test_a_late_answer_holds_within_the_timeout_and_the_suppression_says_so(
    gated: PluginSandbox, loopback_api: LoopbackAPI, mock_narrator: MockNarrator, observer: Observer
) -> None:
    loopback_api.script(Reply.slow(3.0, json.dumps(SPEAK)))
    started = time.monotonic()
    two_reads(gated, controller_timeout_s=0.3)
    # The agent's thread waited for the controller no longer than its timeout allows.
    assert time.monotonic() - started < 2.5
    assert mock_narrator.reasons == ["final"]
    [reason] = suppressions(observer)
    assert reason.startswith(
        "llm: anthropic controller gave no decision within controller_timeout_s (0.3 s): "
    )
    assert "no answer from" in reason or "no complete answer from" in reason


def test_an_api_error_holds_and_names_the_status(
    gated: PluginSandbox, loopback_api: LoopbackAPI, mock_narrator: MockNarrator, observer: Observer
) -> None:
    loopback_api.script(Reply.error(400, "prompt is too long"))
    two_reads(gated)
    [reason] = suppressions(observer)
    assert "HTTP 400 invalid_request_error" in reason and "prompt is too long" in reason


def test_without_a_key_nothing_is_sent_and_the_suppression_says_why(
    gated: PluginSandbox,
    loopback_api: LoopbackAPI,
    observer: Observer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    two_reads(gated)
    assert loopback_api.requests == []
    assert suppressions(observer) == [
        "llm: anthropic: ANTHROPIC_API_KEY is not set (2 events held since the session started)"
    ]


def test_failures_speak_without_asking_the_controller(
    gated: PluginSandbox, loopback_api: LoopbackAPI, mock_narrator: MockNarrator
) -> None:
    with gated.session("coder", gate="llm", min_buffer_size=2, idle_interval_s=0) as s:
        call = s.tool_call("Bash", {"command": "pytest -q"})
        s.tool_result(call.data["tool_use_id"], "1 failed", is_error=True)
        assert s.wait_idle(5)
    assert mock_narrator.reasons == ["gate: tool failed: Bash"]
    assert loopback_api.requests == []
