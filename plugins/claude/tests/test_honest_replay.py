"""A session in both real formats (Claude Code transcript, stream-json) replayed with the
default narrator: a test run sent to the background is never said to have passed until a
result shows it; reads cancelled by a failing sibling are told once, with their cause; the
user's interruption is told; housekeeping tools are plain actions."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FIXTURES
from pytest_monologue import PluginSandbox, Replayed

TRANSCRIPT = FIXTURES / "honesty.jsonl"
STREAM = FIXTURES / "honesty.stream.jsonl"


@pytest.fixture
def sandbox(monologue_plugins: PluginSandbox) -> PluginSandbox:
    monologue_plugins.load("claude", "template", "buffer")
    return monologue_plugins


def replay(sandbox: PluginSandbox, path: Path, preset: str) -> Replayed:
    return sandbox.replay(path, agent="claude", narrator="template", preset=preset)


def index_covering(replayed: Replayed, tool: str) -> int:
    """Which narrative covers the (first) call of ``tool``."""
    call = next(e for e in replayed.of_type("tool_call") if e.data["tool_name"] == tool)
    return next(i for i, n in enumerate(replayed.narratives) if call.id in n.data["covers"])


@pytest.mark.parametrize("path", [TRANSCRIPT, STREAM], ids=["transcript", "stream-json"])
@pytest.mark.parametrize("preset", ["terse", "default", "verbose"])
def test_the_story_claims_no_outcome_it_has_not_seen(
    sandbox: PluginSandbox, path: Path, preset: str
) -> None:
    replayed = replay(sandbox, path, preset)
    texts = [str(n.data["text"]) for n in replayed.narratives]
    story = " ".join(texts)

    # Every tool call is covered by some narrative.
    assert all(replayed.narrative_of(call) for call in replayed.of_type("tool_call"))
    # Until the job's output is checked, the background test run has only started.
    checked = index_covering(replayed, "TaskOutput")
    assert index_covering(replayed, "Bash") <= checked
    assert not any("passed" in text for text in texts[:checked])
    assert "Sibling" not in story and "TaskOutput" not in story and "ExitPlanMode" not in story
    assert sum("parallel call" in text for text in texts) == 1


@pytest.mark.parametrize("path", [TRANSCRIPT, STREAM], ids=["transcript", "stream-json"])
def test_default_tells_the_background_job_the_cascade_and_the_check(
    sandbox: PluginSandbox, path: Path
) -> None:
    replayed = replay(sandbox, path, "default")
    story = " ".join(str(n.data["text"]) for n in replayed.narratives)

    assert "I started `mix test` in the background" in story
    assert (
        "Reading lib/missing.ex failed, so 2 parallel calls were cancelled: "
        "read lib/spotter/a.ex and read lib/spotter/b.ex." in story
    )
    assert story.count("parallel call") == 1
    assert "I checked the background job; it finished: all 5 tests passed." in story
    verbose = replay(sandbox, path, "verbose").narratives
    assert any("I finished planning." in str(n.data["text"]) for n in verbose)


def test_the_users_request_and_interruption_are_told(sandbox: PluginSandbox) -> None:
    replayed = replay(sandbox, TRANSCRIPT, "default")
    story = " ".join(str(n.data["text"]) for n in replayed.narratives)

    assert "You asked me to run the tests and fix what fails." in story
    assert "you interrupted me" in story.lower()
