"""The template narrator in real sessions, loaded through its entry point."""

from __future__ import annotations

import pytest
from pytest_monologue import PluginSandbox

from monologue.events import Event


@pytest.fixture
def narrated(monologue_plugins: PluginSandbox) -> list[Event]:
    """Narratives delivered in the sandbox, in order."""
    monologue_plugins.load("template")
    delivered: list[Event] = []

    class Collect:
        from monologue import hookimpl

        @hookimpl
        def on_narrative(self, narrative: Event) -> None:
            delivered.append(narrative)

    monologue_plugins.register(Collect(), "collect")
    return delivered


def test_it_is_the_zero_configuration_narrator(
    monologue_plugins: PluginSandbox, narrated: list[Event]
) -> None:
    with monologue_plugins.session("coder") as s:
        assert s.narrator == "template"
        call = s.tool_call("Read", {"file_path": "README.md"})
        s.tool_result(call.data["tool_use_id"], "# monologue")
    assert [n.text for n in narrated] == ["I read README.md. I'm done after 1 tool call."]
    assert narrated[0].data["narrator"] == "template"
    assert narrated[0].data["reason"] == "final"


def test_results_are_joined_to_calls_narrated_in_an_earlier_turn(
    monologue_plugins: PluginSandbox, narrated: list[Event]
) -> None:
    with monologue_plugins.session("coder", max_buffer_size=2) as s:
        tests = s.tool_call("Bash", {"command": "pytest -q"})
        read = s.tool_call("Read", {"file_path": "src/client.py"})
        assert s.wait_idle(5)
        s.tool_result(tests.data["tool_use_id"], "41 passed in 0.30s")
        s.tool_result(read.data["tool_use_id"], "import httpx")
        assert s.wait_idle(5)
    assert [n.text for n in narrated] == [
        "I'm running the test suite. I'm reading src/client.py.",
        "I ran the test suite; all 41 tests passed. I read src/client.py.",
    ]
    assert [n.data["reason"] for n in narrated] == ["max_buffer", "max_buffer"]


def test_the_preset_comes_from_the_session_config(
    monologue_plugins: PluginSandbox, narrated: list[Event]
) -> None:
    with monologue_plugins.session("coder", preset="terse", max_buffer_size=6) as s:
        for name in ("a.py", "b.py", "c.py"):
            call = s.tool_call("Read", {"file_path": name})
            s.tool_result(call.data["tool_use_id"], "x")
        assert s.wait_idle(5)
        s.text("All three agree.")
    assert [n.text for n in narrated] == [
        "I read a.py and 2 other files.",
        "I'm done after 3 tool calls.",
    ]


def test_an_agent_that_raised_is_told_plainly(
    monologue_plugins: PluginSandbox, narrated: list[Event]
) -> None:
    def run() -> None:
        with monologue_plugins.session("coder") as s:
            call = s.tool_call("Read", {"file_path": "settings.toml"})
            s.tool_result(call.data["tool_use_id"], "[retries]")
            raise KeyError("retries")

    with pytest.raises(KeyError):
        run()
    assert narrated[-1].text == (
        "I read settings.toml. I stopped because of an error: KeyError: 'retries'."
    )


def test_idle_says_what_is_still_running(
    monologue_plugins: PluginSandbox, narrated: list[Event]
) -> None:
    with monologue_plugins.session("coder") as s:
        s.tool_call("Bash", {"command": "pytest -q"})
        s.request_narration("idle")
        assert s.wait_idle(5)
        assert narrated[0].data["reason"] == "idle"
        assert narrated[0].text.startswith(
            "I'm running the test suite. Still running the test suite, "
        )
        assert narrated[0].text.endswith(" s so far.")


def test_it_declares_its_calls_quick_work_in_this_process(
    monologue_plugins: PluginSandbox, narrated: list[Event]
) -> None:
    # So an instant replay runs its turns on its pipeline thread, with no narrator pool
    # (tests/e2e/test_in_place_narratives.py: the same narratives as on the pool).
    s = monologue_plugins.session("coder")
    assert monologue_plugins.hooks.narrator_in_place("template", s.config) is True
