"""Every shared OpenHands trace replays with each tool action narrated by its subject.

The subject is taken from the raw trace (the action's path, command or URL), not from the
reader's output. Skipped when ../shared is absent.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

import pytest
from pytest_monologue import PluginSandbox

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "traces" / "openhands"
TRACES = sorted(SHARED.glob("*.json"))


def expected_subjects(path: Path) -> dict[str, str]:
    """The tool-call id of each tool action in the raw trace, and what names it."""
    subjects = {}
    for item in json.loads(path.read_text()):
        args = item.get("args", {})
        if item.get("action") in ("read", "write", "edit"):
            name = PurePosixPath(args["path"]).name
        elif item.get("action") == "run":
            name = args["command"].split("&&")[-1].strip()[:25]
        else:
            continue
        subjects[item["tool_call_metadata"]["tool_call_id"]] = name
    return subjects


@pytest.mark.skipif(not TRACES, reason="../shared/traces is absent")
@pytest.mark.parametrize("path", TRACES, ids=lambda path: path.name)
def test_each_action_is_named_by_its_narrative(
    monologue_plugins: PluginSandbox, path: Path
) -> None:
    monologue_plugins.load("openhands", "template", "buffer")
    replayed = monologue_plugins.replay(path, narrator="template")
    assert replayed.reader == "openhands"
    told = {
        call.data["tool_use_id"]: replayed.narrative_of(call)
        for call in replayed.of_type("tool_call")
    }
    subjects = expected_subjects(path)
    assert set(told) == set(subjects)
    for call_id, subject in subjects.items():
        assert subject in (told[call_id] or "uncovered"), (subject, told[call_id])
