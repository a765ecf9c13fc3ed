"""Every shared SWE-agent / mini-swe-agent trace replays with each action narrated by name.

Skipped when ../shared is absent: the project's own fixtures are tested elsewhere.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

import pytest
from pytest_monologue import PluginSandbox

from monologue.events import Event

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "traces"
TRACES = sorted([*SHARED.glob("swe-agent/*.traj"), *SHARED.glob("mini-swe-agent/*.json")])
_CD = re.compile(r"^cd\s+\S+\s*(?:&&|;)\s*")


def subjects(call: Event) -> list[str]:
    """What a narrative must name: a file's name; a command's program and the last part of
    its last argument (a long command is shortened in the middle, keeping what tells it
    apart); a search pattern."""
    given = call.data["input"]
    if "file_path" in given:
        return [PurePosixPath(given["file_path"]).name]
    if "command" in given:
        words = _CD.sub("", given["command"].strip().splitlines()[0]).split()
        return [words[0], PurePosixPath(words[-1]).name[:25]]
    return [str(given["pattern"])]


@pytest.mark.skipif(not TRACES, reason="../shared/traces is absent")
@pytest.mark.parametrize("path", TRACES, ids=lambda path: path.name)
def test_each_action_is_narrated_with_its_subject(
    monologue_plugins: PluginSandbox, path: Path
) -> None:
    monologue_plugins.load("sweagent", "template", "buffer")
    replayed = monologue_plugins.replay(path, narrator="template")
    assert replayed.reader == "sweagent"
    calls = replayed.of_type("tool_call")
    assert calls
    for call in calls:
        told = replayed.narrative_of(call)
        assert told is not None, f"{call.data} is not covered by a narrative"
        assert all(part in told for part in subjects(call)), (subjects(call), told)
