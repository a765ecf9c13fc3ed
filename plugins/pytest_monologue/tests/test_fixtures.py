"""The fixtures plugin authors get from ``pytest_monologue``."""

from __future__ import annotations

import os

import pytest
from pytest_monologue import WAIT, Hang, MockNarrator

from monologue import Narration


def test_sandbox_is_isolated_from_the_environment(monologue_plugins):
    assert not [
        k for k in os.environ if k.startswith("MONOLOGUE_") and k != "MONOLOGUE_NO_CONFIG_FILE"
    ]
    assert monologue_plugins.pm.get_plugins() == set()


def test_loading_an_unknown_installed_plugin_is_a_clear_error(monologue_plugins):
    with pytest.raises(LookupError, match="no installed monologue plugin 'not-a-plugin'"):
        monologue_plugins.load("not-a-plugin")


def test_mock_narrator_scripts_answers_and_logs_calls(monologue_plugins):
    mock = monologue_plugins.register(MockNarrator(), "mock")
    mock.queue("text", Narration(text="rich"), WAIT, None, ValueError("boom"), KeyError, Hang(0.01))
    with monologue_plugins.session("a", narrator="none") as s:
        answers = []
        for _ in range(8):
            try:
                answers.append(mock.narrate(s, [], [], "buffer"))
            except Exception as exc:
                answers.append(type(exc).__name__)
    assert answers[:4] == ["text", Narration(text="rich"), "...", None]
    assert answers[4:6] == ["ValueError", "KeyError"]
    assert answers[6] is None  # Hang, then wait
    assert answers[7] == "Narration 8 (0 events)."
    assert len(mock.calls) == 8
    assert mock.calls[0].reason == "buffer"
    assert mock.calls[0].first is True
    assert mock.wait_for_calls(8, timeout=0.01)
    assert not mock.wait_for_calls(9, timeout=0.01)


def test_mock_narrator_default_text(monologue_plugins, mock_narrator):
    mock_narrator.default = "Same every time."
    with monologue_plugins.session("a") as s:
        s.text("x")
    assert list(s.history) == ["Same every time."]


def test_narrative_of_finds_events_covered_by_a_digests_range(monologue_plugins):
    from monologue import hookimpl
    from monologue.events import Event

    class WaitsUntilTheEnd:
        @hookimpl
        def narrate(self, events, reason):
            return "All done." if reason == "final" else "..."

    monologue_plugins.register(WaitsUntilTheEnd(), "waits")
    # Past 4,096 folded events the final narrative lists only the newest ids, and a range.
    events = [Event(type="text", data={"text": f"step {n}"}) for n in range(4_200)]
    replayed = monologue_plugins.replay(events, narrator="waits", buffer_cap=20)
    (narrative,) = replayed.narratives
    assert replayed.events[0].id not in narrative.data["covers"]
    assert narrative.data["covers_range"][0] == replayed.events[0].id
    assert all(replayed.narrative_of(event) == "All done." for event in replayed.events)


def test_a_hang_ends_when_the_narrator_is_released() -> None:
    import threading
    import time

    narrator = MockNarrator().queue(Hang(30))
    session = type("S", (), {"is_first": True, "id": "s"})()
    answers: list[object] = []
    call = threading.Thread(target=lambda: answers.append(narrator.narrate(session, [], [], "x")))
    call.start()
    assert narrator.wait_for_calls(1)
    started = time.monotonic()
    narrator.release()  # what the mock_narrator fixture does when its test ends
    call.join(5)
    assert not call.is_alive() and answers == [None]
    assert time.monotonic() - started < 5
