"""The check on the live path: a false narration never reaches the listener."""

from __future__ import annotations

import logging

import pytest
from pytest_monologue import MockNarrator, PluginSandbox

from monologue import Session, hookimpl
from monologue.checking import ClaimCheck
from monologue.events import Event

FALSE = "I ran `pytest -q`; all 40 tests passed, and I pushed the fix."


def run_agent(sandbox: PluginSandbox) -> tuple[Session, list[Event]]:
    """A failing test run, narrated once at the end (the waits are long: a busy machine
    may take seconds to import a narrator's SDK, and the retry must fit the deadline)."""
    heard: list[Event] = []
    config = {"min_buffer_size": 5, "final_wait_s": 60, "narrate_timeout_s": 60}
    with sandbox.session("coder", **config) as session:
        session.subscribe(heard.append)
        call = session.tool_call("Bash", {"command": "pytest -q"})
        session.tool_result(call.data["tool_use_id"], "2 failed, 38 passed in 1.1s", is_error=True)
    return session, heard


@pytest.fixture
def checked(monologue_plugins: PluginSandbox) -> PluginSandbox:
    monologue_plugins.load("check")
    return monologue_plugins


def test_a_false_narration_is_replaced_by_safe_text(
    checked: PluginSandbox, mock_narrator: MockNarrator, caplog: pytest.LogCaptureFixture
) -> None:
    mock_narrator.default = FALSE
    with caplog.at_level(logging.WARNING, logger="monologue"):
        session, heard = run_agent(checked)
    assert heard, "nothing was delivered"
    for narrative in heard:
        assert "passed" not in narrative.data["text"] and "pushed" not in narrative.data["text"]
        record = narrative.data["checked"]
        assert record["status"] == "fallback"
        assert record["original"] == FALSE
        assert {v["kind"] for v in record["violations"]} >= {"outcome"}
    assert "`pytest -q`" in heard[-1].data["text"]
    assert session.stats.claims_false == len(heard)
    warnings = [r for r in caplog.records if "claims were false" in r.getMessage()]
    assert len(warnings) == 1


class Reconsidering:
    """A narrator that takes feedback: false first, true when told what was wrong."""

    def __init__(self) -> None:
        self.feedback: list[list[str]] = []

    @hookimpl
    def narrate(self, events: list[Event], feedback: list[str] | None) -> str:
        if feedback is None:
            return FALSE
        self.feedback.append(feedback)
        return "I ran `pytest -q`; 2 of 40 tests failed."


def test_a_narrator_that_takes_feedback_is_asked_once_more(
    checked: PluginSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    narrator = checked.register(Reconsidering(), "reconsidering")
    monkeypatch.setenv("MONOLOGUE_NARRATOR", "reconsidering")
    _, heard = run_agent(checked)
    assert [n.data["text"] for n in heard][-1] == "I ran `pytest -q`; 2 of 40 tests failed."
    assert heard[-1].data["checked"]["status"] == "retried"
    assert len(narrator.feedback) == len(heard)
    assert any("passed" in line for line in narrator.feedback[0])


def test_a_true_narration_is_delivered_as_it_is(
    checked: PluginSandbox, mock_narrator: MockNarrator
) -> None:
    mock_narrator.default = "I ran `pytest -q`; 2 of 40 tests failed."
    session, heard = run_agent(checked)
    assert heard[-1].data["text"] == mock_narrator.default
    assert heard[-1].data["checked"]["status"] == "passed"
    assert heard[-1].data["checked"]["claims"] >= 3
    assert session.stats.claims_false == 0


class Broken:
    @hookimpl
    def check_narrative(self, text: str) -> ClaimCheck:
        raise RuntimeError("checker bug")


def test_a_failing_checker_never_holds_narration_up(
    monologue_plugins: PluginSandbox, mock_narrator: MockNarrator
) -> None:
    monologue_plugins.register(Broken(), "broken-checker")
    mock_narrator.default = FALSE
    session, heard = run_agent(monologue_plugins)
    assert heard and heard[-1].data["text"] == FALSE
    assert heard[-1].data["checked"]["status"] == "unchecked"
    assert session.stats.unchecked == len(heard)


def test_without_a_checker_nothing_is_marked(
    monologue_plugins: PluginSandbox, mock_narrator: MockNarrator
) -> None:
    mock_narrator.default = FALSE
    _, heard = run_agent(monologue_plugins)
    assert heard and "checked" not in heard[-1].data


def test_the_check_runs_on_the_narrator_pool(
    checked: PluginSandbox, mock_narrator: MockNarrator
) -> None:
    import threading

    threads: list[str] = []

    class Spy:
        @hookimpl(tryfirst=True)
        def check_narrative(self) -> None:
            threads.append(threading.current_thread().name)

    checked.register(Spy(), "spy")
    run_agent(checked)
    assert threads and threading.main_thread().name not in threads
