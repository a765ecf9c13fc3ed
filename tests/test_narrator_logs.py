"""Expected narrator failures are one WARNING line saying what happens next; tracebacks only
at DEBUG. Anything else a narrator raises is a bug: ERROR with its traceback."""

from __future__ import annotations

import logging

import pytest
from pytest_monologue import PluginSandbox

from monologue import hookimpl
from monologue.errors import NarratorFailure
from monologue.events import Event


class RateLimited(NarratorFailure):
    """What a narrator plugin raises for an answer like HTTP 429."""


class Failing:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    @hookimpl
    def narrate(self, events: list[Event]) -> str:
        raise self.exc


def run(sandbox: PluginSandbox, exc: BaseException, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="monologue")
    sandbox.register(Failing(exc), "failing")
    with sandbox.session("coder", narrator="failing", max_buffer_size=2, min_buffer_size=1) as s:
        call = s.tool_call("Read", {"file_path": "README.md"})
        s.tool_result(call.data["tool_use_id"], "# monologue")
        assert s.wait_idle(5)


def loud(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize(
    "exc",
    [
        RateLimited("HTTP 429 rate_limit_error from http://127.0.0.1:1/v1/messages"),
        TimeoutError("the read timed out"),
        ConnectionResetError("connection reset by peer"),
    ],
)
def test_an_expected_failure_is_one_warning_line_without_traceback(
    monologue_plugins: PluginSandbox, caplog: pytest.LogCaptureFixture, exc: BaseException
) -> None:
    run(monologue_plugins, exc, caplog)

    first, *others = loud(caplog)  # the turn's failure; then the final turn's
    assert all(r.levelno == logging.WARNING for r in [first, *others])
    assert all(r.exc_info is None for r in [first, *others])
    message = first.getMessage()
    assert message.startswith(f"plugin 'failing' raised in narrate: {type(exc).__name__}: {exc}")
    assert "2 event(s) kept; narration goes on" in message
    assert "\n" not in message
    tracebacks = [r for r in caplog.records if r.levelno == logging.DEBUG and r.exc_info]
    assert tracebacks  # still there for whoever turns DEBUG on


def test_an_unexpected_exception_is_an_error_with_its_traceback(
    monologue_plugins: PluginSandbox, caplog: pytest.LogCaptureFixture
) -> None:
    run(monologue_plugins, ValueError("bug in the plugin"), caplog)

    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert errors
    assert (
        errors[0].getMessage()
        == "plugin 'failing' raised in narrate: ValueError: bug in the plugin"
    )
    assert errors[0].exc_info is not None


def test_narrator_failure_is_public_and_a_monologue_error() -> None:
    from monologue.errors import MonologueError

    assert issubclass(NarratorFailure, MonologueError)
