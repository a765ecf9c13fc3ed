"""The Haiku narrator, through the real SDK against the loopback Messages API, replaying a
Claude Code transcript: each request carries the outcome facts of its events, so the model
never has to infer that a background test run passed or that cancelled reads failed."""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

import pytest
from pytest_monologue import PluginSandbox
from pytest_monologue.anthropic import LoopbackAPI

SESSION = Path(__file__).parent / "fixtures" / "honest-outcomes.claude.jsonl"
NEEDED = {"claude", "anthropic", "buffer"}

pytestmark = pytest.mark.skipif(
    not NEEDED.issubset(ep.name for ep in entry_points(group="monologue")),
    reason=f"needs the {', '.join(sorted(NEEDED))} plugins installed",
)


def test_each_request_carries_what_its_results_show(
    monologue_plugins: PluginSandbox, loopback_api: LoopbackAPI
) -> None:
    monologue_plugins.load(*NEEDED)
    replayed = monologue_plugins.replay(SESSION, agent="claude", narrator="anthropic")

    prompts = [request.user_text for request in loopback_api.requests]
    assert replayed.narratives and prompts
    started = [p for p in prompts if "Command running in background with ID" in p]
    assert started and all(
        "Bash (command=mix test, description=Run the test suite) was only started in the "
        "background" in p
        for p in started
    )
    cascade = [p for p in prompts if "Sibling tool call errored" in p]
    assert cascade and all(
        "were cancelled because Read (file_path=/home/user/spotter/lib/missing.ex) failed" in p
        or "were cancelled because a parallel call failed earlier" in p
        for p in cascade
    )
    assert any("The user interrupted the agent." in p for p in prompts)
    pending = [p for p in prompts if "called Bash: command=mix test" in p and p not in started]
    running = "(command=mix test, description=Run the test suite) is still running"
    assert all(running in p for p in pending)
    # Every tool call reached the model in some request.
    assert all(replayed.narrative_of(call) for call in replayed.of_type("tool_call"))
