"""The default should_speak policy, through real sessions with the mock narrator.

Sessions load the buffer plugin through its real entry point; the mock narrator answers at
once, and the test waits for each narration before the next event, like a live agent whose
narrator keeps up.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from conftest import T0, Start
from monologue_buffer import state_of
from pytest_monologue import PluginSandbox

from monologue import hookimpl
from monologue.events import Event


def test_below_min_no_narration_is_asked_and_at_min_the_introduction_is(start: Start) -> None:
    agent = start(min_buffer_size=3, max_buffer_size=8)
    agent.text()
    agent.call("Read", file_path="a.py")
    assert agent.asked == 0
    agent.call("Read", file_path="b.py")
    assert agent.asked == 1
    first = agent.narrator.calls[0]
    assert (first.reason, first.first, len(first.events)) == ("buffer", True, 3)


def test_min_holds_after_the_introduction_too(start: Start) -> None:
    agent = start(min_buffer_size=3, buffer_steps=1)
    agent.step()
    agent.text()
    assert agent.asked == 1
    agent.step()  # two steps, but only two events since the introduction
    assert agent.asked == 1
    agent.text()
    assert agent.asked == 2
    assert len(agent.narrator.calls[1].events) == 3


def test_at_max_the_narrator_is_asked_with_reason_max_buffer(start: Start) -> None:
    agent = start(max_buffer_size=5)
    agent.step()  # the introduction
    assert agent.narrator.reasons == ["buffer"]
    for _ in range(4):  # tool calls without results: no natural boundary, so it holds
        agent.call("Bash", command="sleep 1")
    assert agent.asked == 1
    agent.call("Bash", command="sleep 1")
    assert agent.narrator.reasons == ["buffer", "max_buffer"]
    assert len(agent.narrator.calls[1].events) == 5


def test_after_the_introduction_it_waits_for_enough_completed_steps(start: Start) -> None:
    agent = start(min_buffer_size=2, max_buffer_size=20, buffer_steps=3)
    agent.step()
    assert agent.asked == 1
    agent.step()
    agent.step()
    assert agent.asked == 1
    use_id = agent.call()
    assert agent.asked == 1, "a tool call is not a boundary"
    agent.result(use_id)
    assert agent.asked == 2
    assert agent.narrator.calls[1].types == ["tool_call", "tool_result"] * 3


def test_agent_text_counts_as_a_step_and_is_a_boundary(start: Start) -> None:
    agent = start(buffer_steps=2)
    agent.step()
    agent.step()
    assert agent.asked == 1
    agent.text("Found it: the limit is in config.py.")
    assert agent.asked == 2


def test_an_error_is_narrated_at_once_even_below_min(start: Start) -> None:
    agent = start(min_buffer_size=3, buffer_steps=10)
    agent.text()
    agent.step()
    assert agent.asked == 1
    use_id = agent.call("Bash", command="pytest")
    agent.result(use_id, "boom", is_error=True)
    assert agent.asked == 2
    # The call was narrated already: the failed result alone is enough.
    use_id = agent.call("Bash", command="make")
    agent.text("It failed, let me retry.")
    agent.text("Retrying.")
    assert agent.asked == 2
    assert agent.narrator.calls[1].types == ["tool_call", "tool_result"]


def test_an_error_alone_in_the_buffer_is_narrated(start: Start) -> None:
    agent = start()
    agent.step()
    use_id = agent.call("Bash", command="pytest")
    agent.step()
    agent.step()
    agent.step()
    calls_before = agent.asked
    agent.result(use_id, "Traceback ...\nImportError: no module x", is_error=True)
    assert agent.asked == calls_before + 1
    assert agent.narrator.calls[-1].types == ["tool_result"]


def test_a_run_of_errors_is_announced_once_until_the_next_ordinary_narration(
    start: Start,
) -> None:
    agent = start(buffer_steps=3)
    agent.step()
    assert agent.asked == 1
    agent.result(agent.call("Bash", command="a"), "no", is_error=True)
    assert agent.asked == 2
    agent.result(agent.call("Bash", command="b"), "no", is_error=True)
    agent.result(agent.call("Bash", command="c"), "no", is_error=True)
    assert agent.asked == 2, "later failures wait for an ordinary narration"
    agent.step()
    assert agent.asked == 3  # three steps at a boundary: ordinary narration
    agent.result(agent.call("Bash", command="d"), "no", is_error=True)
    assert agent.asked == 4, "after an ordinary narration, a new error is news again"


def test_error_events_are_narrated_at_once(start: Start) -> None:
    agent = start(min_buffer_size=4)
    agent.session.error("ConnectionError: the API is down", "ConnectionError")
    agent.session.wait_idle(5)
    assert agent.asked == 1
    assert agent.narrator.calls[0].types == ["error"]


def test_throttle_uses_event_timestamps(start: Start) -> None:
    agent = start(throttle_ms=10_000, buffer_steps=1, max_buffer_size=20)
    agent.step(at=0)
    assert agent.asked == 1  # the introduction is not throttled
    agent.step(at=4)
    agent.step(at=9)
    assert agent.asked == 1, "less than 10 s after the last narration"
    agent.step(at=10.5)
    assert agent.asked == 2
    agent.step(at=11)
    assert agent.asked == 2


def test_throttle_never_holds_past_max_nor_an_error(start: Start) -> None:
    agent = start(throttle_ms=60_000, max_buffer_size=4)
    agent.step(at=0)
    agent.result(agent.call("Bash", at=1, command="x"), "failed", is_error=True, at=2)
    assert agent.asked == 2
    agent.step(at=3)
    agent.step(at=4)
    assert agent.narrator.reasons == ["buffer", "buffer", "max_buffer"]


def test_the_clock_follows_the_agents_events_only_under_a_throttle(start: Start) -> None:
    throttled = start(throttle_ms=10_000)
    throttled.step(at=4)
    assert throttled.asked == 1  # the introduction: its narrative is stamped now, not at T0
    assert state_of(throttled.session).latest_ts == T0 + timedelta(seconds=4)
    free = start()
    free.step(at=4)
    assert state_of(free.session).latest_ts is None  # only the throttle reads the clock


class SpeakOnHint:
    """A controller in miniature: the hint ``speak_now`` makes it narrate."""

    @hookimpl(tryfirst=True)
    def should_speak(self, event: Event) -> str | None:
        return "gate" if event.type == "hint" and event.data["name"] == "speak_now" else None


def test_narrations_asked_by_someone_else_reset_the_throttle(
    monologue_plugins: PluginSandbox, start: Start
) -> None:
    monologue_plugins.register(SpeakOnHint(), "controller")
    agent = start(throttle_ms=10_000, min_buffer_size=1, buffer_steps=1)
    agent.text(at=0)
    agent.text(at=12)
    agent.text(at=30)
    assert agent.asked == 3
    agent.text(at=38)
    assert agent.asked == 3  # throttled
    agent.clock = 45
    agent.session.emit("hint", {"name": "speak_now"}, ts=T0 + timedelta(seconds=45))
    agent.session.wait_idle(5)
    assert agent.narrator.reasons[-1] == "gate"
    agent.text(at=50)
    assert agent.asked == 4, "5 s after the controller's narration"
    agent.text(at=56)
    assert agent.asked == 5


def test_hints_are_left_to_controllers(start: Start) -> None:
    agent = start()
    agent.step()
    agent.session.hint("user_waiting")
    agent.session.wait_idle(5)
    assert agent.asked == 1


def test_the_introduction_can_be_turned_off(start: Start) -> None:
    agent = start(buffer_intro="false", buffer_steps=2)
    agent.call()
    agent.text()
    assert agent.asked == 0
    agent.step()
    assert agent.asked == 1


def test_settings_come_from_environment_variables(
    monkeypatch: pytest.MonkeyPatch, start: Start
) -> None:
    monkeypatch.setenv("MONOLOGUE_BUFFER_STEPS", "1")
    agent = start()
    agent.step()
    agent.step()
    assert agent.asked == 2


@pytest.mark.parametrize(
    ("setting", "problem"),
    [
        (
            {"buffer_steps": "many"},
            "buffer_steps = 'many' (from session() arguments): Input should be a valid integer",
        ),
        (
            {"buffer_steps": 0},
            "buffer_steps = 0 (from session() arguments): Input should be greater than or equal",
        ),
        (
            {"buffer_intro": "maybe"},
            "buffer_intro = 'maybe' (from session() arguments): Input should be a valid boolean",
        ),
    ],
)
def test_a_bad_setting_is_reported_naming_the_key_and_defaults_are_used(
    monologue_plugins: PluginSandbox,
    start: Start,
    caplog: pytest.LogCaptureFixture,
    setting: dict[str, object],
    problem: str,
) -> None:
    agent = start(**setting)
    assert problem in caplog.text  # the core's one warning, naming key, value and source
    assert monologue_plugins.hooks.errors[("buffer", "on_session_start")] == 0
    agent.step()  # the defaults still narrate: an introduction at min_buffer_size
    assert agent.asked == 1
    assert monologue_plugins.hooks.errors[("buffer", "should_speak")] == 0
