"""The strict gate speaks on every burst of failing tool results, on real Claude traces.

A burst is a run of failing tool results with no successful result in between (cancelled
siblings, a retry of the same mistake). Each burst must be covered by a narrative whose
reason shows the gate spoke because of it: ``gate: tool failed: <tool>``, covering the
burst's first failure. Measured on every shared Claude trace (skipped without
/work/shared) and on this suite's own fixture in the real Claude Code transcript format,
which also has a user interruption and a sub-agent's return. Needs monologue-claude,
-gate and -template installed (tox env e2e).
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from e2e_support import run_command
from pytest_monologue import PluginSandbox, Replayed

from monologue.events import Event

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "traces"
FIXTURE = Path(__file__).parent / "fixtures" / "gate-bursts.jsonl"
MONOLOGUE = Path(sys.executable).with_name("monologue")
NEEDED = {"claude", "gate", "template"}
STRICT: dict[str, Any] = {"gate": "strict", "narrator": "template", "idle_interval_s": 0}

pytestmark = pytest.mark.skipif(
    not NEEDED.issubset(ep.name for ep in entry_points(group="monologue")),
    reason=f"needs the {', '.join(sorted(NEEDED))} plugins installed",
)


def shared_traces() -> list[object]:
    found = sorted(SHARED.glob("claude-code-transcript/*.jsonl"))
    found += sorted(SHARED.glob("claude-stream-json/*.json"))
    if not found:
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"no traces in {SHARED}"))]
    return [pytest.param(path, id=path.name) for path in found]


def bursts(events: list[Event]) -> list[list[Event]]:
    """Runs of failing tool results, in order; a successful result ends a run."""
    runs: list[list[Event]] = []
    current: list[Event] = []
    for event in events:
        if event.type != "tool_result":
            continue
        if event.data["is_error"]:
            current.append(event)
        elif current:
            runs.append(current)
            current = []
    return [*runs, current] if current else runs


def narrative_covering(replayed: Replayed, event: Event) -> Event:
    [narrative] = [n for n in replayed.narratives if event.id in n.data["covers"]]
    return narrative


def replay_strict(sandbox: PluginSandbox, path: Path, tmp_path: Path) -> Replayed:
    sandbox.load(*sorted(NEEDED))
    return sandbox.replay(path, **STRICT, data_dir=str(tmp_path / "data"))


def assert_every_burst_spoken(replayed: Replayed) -> list[list[Event]]:
    found = bursts(replayed.events)
    for burst in found:
        first = burst[0]
        narrative = narrative_covering(replayed, first)
        assert narrative.data["reason"] == f"gate: tool failed: {first.data['tool_name']}", (
            f"the burst starting at {first.id} ({first.data['tool_name']}) is covered by a "
            f"narrative with reason {narrative.data['reason']!r}"
        )
    return found


@pytest.mark.parametrize("path", shared_traces())
def test_strict_speaks_on_every_burst_of_failing_tool_results_in_shared_traces(
    monologue_plugins: PluginSandbox, path: Path, tmp_path: Path
) -> None:
    replayed = replay_strict(monologue_plugins, path, tmp_path)
    found = assert_every_burst_spoken(replayed)
    spoken = [n for n in replayed.narratives if n.data["reason"].startswith("gate: tool failed")]
    # One narration per burst, not one per failure.
    assert len(spoken) == len(found)


def test_the_own_fixture_has_three_bursts_and_each_is_spoken(
    monologue_plugins: PluginSandbox, tmp_path: Path
) -> None:
    replayed = replay_strict(monologue_plugins, FIXTURE, tmp_path)
    found = assert_every_burst_spoken(replayed)
    assert [[e.data["tool_name"] for e in burst] for burst in found] == [
        ["Bash"],
        ["Read", "Read", "Read"],  # a missing file, and the siblings it cancelled
        ["Bash", "Bash"],  # a failing suite, then a call the user rejected
    ]


def test_the_interruption_the_user_messages_and_the_sub_agent_return_are_spoken(
    monologue_plugins: PluginSandbox, tmp_path: Path
) -> None:
    replayed = replay_strict(monologue_plugins, FIXTURE, tmp_path)
    messages = replayed.of_type("user_message")
    assert [narrative_covering(replayed, m).data["reason"] for m in messages] == [
        "gate: user message",
        "gate: user interrupted",
        "gate: user message",
    ]
    [task] = [r for r in replayed.of_type("tool_result") if r.data["tool_name"] == "Task"]
    assert narrative_covering(replayed, task).data["reason"] == "gate: sub-agent returned"


def test_the_command_line_replay_gives_the_same_reasons(env: dict[str, str]) -> None:
    done = run_command(
        [
            str(MONOLOGUE),
            "replay",
            str(FIXTURE),
            "--json",
            "--narrator",
            "template",
            "-c",
            "gate=strict",
            "-c",
            "idle_interval_s=0",
        ],
        env,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert [line["reason"] for line in lines if line["kind"] == "narrative"] == [
        "gate: user message",
        "gate: tool failed: Bash",
        "gate: tool failed: Read",
        "gate: sub-agent returned",
        "gate: tool failed: Bash",
        "gate: user interrupted",
        "gate: user message",
        "final",
    ]
