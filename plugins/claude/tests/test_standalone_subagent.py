"""A sub-agent file replayed on its own tells its story in the first person, under the name
its parent's call gave it; a compaction file is a compaction, not a sub-agent."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import FIXTURES
from monologue_claude import read_session
from pytest_monologue import PluginSandbox

SESSION = FIXTURES / "subagents-session" / "5d1e0c2a-1111-4222-8333-944455556666"
EXPLORE = SESSION / "subagents" / "agent-a1b2c3d4.jsonl"
CHECK = SESSION / "subagents" / "agent-e5f6a7b8.jsonl"
COMPACTION = SESSION / "subagents" / "agent-acompact-9f8e7d.jsonl"


def test_a_subagent_file_alone_is_named_by_its_parents_call() -> None:
    # Found by the agentId its result reports: the call's subagent_type.
    explore = read_session(EXPLORE)
    assert explore.agent == "Explore"
    events = list(explore)
    assert {event.agent for event in events} == {""}  # the main agent: told as "I"
    assert events[0].type == "subagent_task"
    assert events[0].data == {
        "name": "Explore",
        "text": "Find every caller of load_config and report them.",
    }
    # Found by the prompt it starts with: a general-purpose call is named by its description.
    assert read_session(CHECK).agent == "Check tests"


def test_without_its_parent_a_subagent_is_named_by_its_prompt(tmp_path: Path) -> None:
    alone = tmp_path / "lost" / "subagents" / EXPLORE.name
    alone.parent.mkdir(parents=True)
    shutil.copy(EXPLORE, alone)
    assert read_session(alone).agent == "Find every caller of load_config and…"


def test_a_replayed_subagent_speaks_in_the_first_person(monologue_plugins: PluginSandbox) -> None:
    monologue_plugins.load("claude", "template", "buffer")
    source = read_session(EXPLORE)
    replayed = monologue_plugins.replay(source, agent=source.agent, narrator="template")
    texts = [str(narrative.data["text"]) for narrative in replayed.narratives]

    assert texts[0].startswith(
        'I\'m the "Explore" sub-agent; I was asked: "Find every caller of load_config and '
        'report them".'
    )
    assert any('I searched for "load_config" in src' in text for text in texts)
    # Never told from outside, nor under its hex id.
    assert not any('The "' in text or "a1b2c3d4" in text for text in texts)


def test_a_compaction_file_alone_is_told_as_a_compaction(
    monologue_plugins: PluginSandbox,
) -> None:
    events = list(read_session(COMPACTION))
    assert [(event.type, event.agent) for event in events] == [
        ("compaction", ""),
        ("completion", ""),
    ]
    assert events[0].data["text"].startswith("The user asked to rename load_config")
    assert "<analysis>" not in events[0].data["text"]
    assert read_session(COMPACTION).agent == "claude"

    monologue_plugins.load("claude", "template", "buffer")
    replayed = monologue_plugins.replay(COMPACTION, agent="claude", narrator="template")
    texts = [str(narrative.data["text"]) for narrative in replayed.narratives]
    # A compaction is told as such, never its summary as news (issue 23).
    assert len(texts) == 1 and texts[0].startswith("(The conversation was compacted.)")
    assert "sub-agent" not in texts[0]


def test_a_compaction_beside_the_parent_is_not_merged_as_a_subagent() -> None:
    events = list(read_session(SESSION.with_suffix(".jsonl")))
    assert not any(event.type == "compaction" for event in events)
    assert not any("acompact" in event.agent for event in events)
