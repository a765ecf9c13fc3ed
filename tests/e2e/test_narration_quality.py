"""Narration a watcher can trust, measured on every shared Claude trace (../shared, skipped
when absent) with the default narrator at each preset:

- every tool call is covered by some narrative (its id is in a narrative's ``covers``);
- no two consecutive narratives read alike once commands, quotes, paths and numbers are
  left out;
- at least 80% of terse narratives name a concrete subject: a file or path, a command, a
  URL or host, a test, or a quoted name (a search pattern, a task).

The measures are written here, independently of the narrator's own helpers, so that they
check it rather than restate it. ``python tests/e2e/test_narration_quality.py`` prints them.
"""

from __future__ import annotations

import itertools
import re
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from pytest_monologue import PluginSandbox, Replayed

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "traces"
FOLDERS = ("claude-code-transcript", "claude-stream-json")
NEEDED = {"claude", "template", "buffer"}
PRESETS = ("terse", "default", "verbose")

pytestmark = pytest.mark.skipif(
    not NEEDED.issubset(ep.name for ep in entry_points(group="monologue")),
    reason=f"needs the {', '.join(sorted(NEEDED))} plugins installed",
)

_SPECIFIC = re.compile(r"`[^`]*`|\"[^\"]*\"|\S*[/.\\]\S*\w|\d+")
_SUBJECT = re.compile(
    r"`[^`]+`"  # a command
    r"|\"[^\"]+\""  # a quoted name: a pattern, a query, a task
    r"|\w[\w-]*\.[a-z]{1,5}\b"  # a file name or a host
    r"|\w/\w|/\w"  # a path
    r"|https?://"
    r"|\btests?\b|\btest suite\b",
    re.IGNORECASE,
)


def traces() -> list[Any]:
    found = [path for folder in FOLDERS for path in sorted((SHARED / folder).glob("*.json*"))]
    if not found:
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{SHARED} is absent"))]
    return [pytest.param(path, id=f"{path.parent.name}/{path.name}") for path in found]


def skeleton(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", _SPECIFIC.sub(" ", text)).lower().split())


def names_subject(text: str) -> bool:
    return bool(_SUBJECT.search(text))


def replay(sandbox: PluginSandbox, path: Path, preset: str) -> Replayed:
    return sandbox.replay(path, agent="claude", narrator="template", preset=preset)


def measure(replayed: Replayed) -> dict[str, Any]:
    """Coverage of tool calls, alike neighbours and subject-naming of one replay."""
    texts = [str(narrative.data["text"]) for narrative in replayed.narratives]
    covered = {event_id for n in replayed.narratives for event_id in n.data["covers"]}
    calls = replayed.of_type("tool_call")
    alike = [
        (before, after)
        for before, after in itertools.pairwise(texts)
        if skeleton(before) == skeleton(after)
    ]
    return {
        "calls": len(calls),
        "covered": sum(call.id in covered for call in calls),
        "narratives": len(texts),
        "alike": alike,
        "naming": sum(names_subject(text) for text in texts),
        "texts": texts,
    }


@pytest.fixture
def sandbox(monologue_plugins: PluginSandbox) -> PluginSandbox:
    monologue_plugins.load(*NEEDED)
    return monologue_plugins


@pytest.fixture(scope="module")
def measured() -> dict[tuple[Path, str], dict[str, Any]]:
    """The measures of each (trace, preset) replayed so far in this module: the terse totals
    reuse the per-trace terse replays instead of replaying every trace a second time (the
    template narrator is deterministic, so a second replay measures the same)."""
    return {}


def measure_once(
    measured: dict[tuple[Path, str], dict[str, Any]],
    sandbox: PluginSandbox,
    path: Path,
    preset: str,
) -> dict[str, Any]:
    if (path, preset) not in measured:
        measured[path, preset] = measure(replay(sandbox, path, preset))
    return measured[path, preset]


@pytest.mark.parametrize("path", traces())
@pytest.mark.parametrize("preset", PRESETS)
def test_every_tool_call_is_covered_and_no_narrative_repeats_the_last(
    sandbox: PluginSandbox,
    measured: dict[tuple[Path, str], dict[str, Any]],
    path: Path,
    preset: str,
) -> None:
    found = measure_once(measured, sandbox, path, preset)

    assert found["calls"] > 0
    assert found["covered"] == found["calls"], found["texts"]
    assert not found["alike"]
    assert all("\\n" not in text and "\n" not in text for text in found["texts"])


def test_terse_names_a_subject_in_at_least_80_percent_of_narratives(
    sandbox: PluginSandbox, measured: dict[tuple[Path, str], dict[str, Any]]
) -> None:
    paths = [param.values[0] for param in traces()]
    if paths == [None]:
        pytest.skip(f"{SHARED} is absent")
    found = [measure_once(measured, sandbox, path, "terse") for path in paths]
    naming = sum(one["naming"] for one in found)
    total = sum(one["narratives"] for one in found)
    unnamed = [text for one in found for text in one["texts"] if not names_subject(text)]

    assert total > 0
    assert naming / total >= 0.8, unnamed


def test_the_measures_can_fail() -> None:
    assert skeleton("I read `a.py` and 3 files.") == skeleton("I read `b.py` and 4 files.")
    assert skeleton("I read a.py.") != skeleton("I edited a.py.")
    assert names_subject("I ran `ls`.") and names_subject("I read src/app.js.")
    assert not names_subject("I ran 3 commands.")
    assert not names_subject("I'm done after 23 tool calls; 3 failed.")


if __name__ == "__main__":  # pragma: no cover - a report for people, not a test
    from monologue.plugins import MonologuePluginManager, use_plugin_manager

    for preset in PRESETS:
        for param in traces():
            trace = param.values[0]
            if trace is None:
                sys.exit(f"{SHARED} is absent")
            with use_plugin_manager(MonologuePluginManager()) as pm:
                box = PluginSandbox(pm)
                box.load(*NEEDED)
                one = measure(replay(box, trace, preset))
            print(
                f"{preset:8} {trace.parent.name}/{trace.name}: calls covered "
                f"{one['covered']}/{one['calls']}, narratives {one['narratives']}, "
                f"alike neighbours {len(one['alike'])}, naming a subject "
                f"{one['naming']}/{one['narratives']}"
            )
