"""The Haiku narrator, through the real anthropic SDK against the loopback Messages API,
scripted to answer falsely: nothing false reaches the listener."""

from __future__ import annotations

import pytest

pytest.importorskip("monologue_anthropic")

from pytest_monologue import PluginSandbox
from pytest_monologue.anthropic import LoopbackAPI, Reply

from .test_live import run_agent

FALSE = "I ran `pytest -q`; all 40 tests passed, and I pushed the fix."
STILL_FALSE = "I fixed the tests in src/retry.py; all 40 passed."
TRUE = "I ran `pytest -q`; 2 of 40 tests failed."


@pytest.fixture
def haiku(monologue_plugins: PluginSandbox, anthropic_narrator: LoopbackAPI) -> LoopbackAPI:
    monologue_plugins.load("check")
    return anthropic_narrator


def test_a_false_answer_is_retried_once_with_the_violations(
    monologue_plugins: PluginSandbox, haiku: LoopbackAPI
) -> None:
    haiku.script(Reply.ok(FALSE), Reply.ok(TRUE))
    session, heard = run_agent(monologue_plugins)
    assert [n.data["text"] for n in heard] == [TRUE]
    assert heard[0].data["checked"]["status"] == "retried"
    first, retry = haiku.requests
    assert "made claims the events do not show" not in first.user_text
    assert "made claims the events do not show" in retry.user_text
    assert "passed" in retry.user_text
    # Both calls' tokens are counted against the narrative.
    usage = heard[0].data["usage"]
    assert usage["input_tokens"] == first.input_tokens + retry.input_tokens
    assert session.stats.claims_false == 1


def test_when_the_retry_is_false_too_the_safe_text_is_delivered(
    monologue_plugins: PluginSandbox, haiku: LoopbackAPI
) -> None:
    haiku.script(Reply.ok(FALSE), Reply.ok(STILL_FALSE))
    _, heard = run_agent(monologue_plugins)
    (narrative,) = heard
    assert narrative.data["checked"]["status"] == "fallback"
    assert "passed" not in narrative.data["text"] and "retry.py" not in narrative.data["text"]
    assert "`pytest -q`" in narrative.data["text"]
    assert len(haiku.requests) == 2, "the retry is used once, never more"
