"""Issue 23's truth corpus, through real sessions narrated by the template narrator in
every mode: default, terse, the strict gate, and terse with strict (monologue-gate)."""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

import pytest
from pytest_monologue import PluginSandbox
from truth_cases import CASES, Case

HAS_GATE = "gate" in {ep.name for ep in entry_points(group="monologue")}
MODES: dict[str, dict[str, Any]] = {
    "default": {},
    "terse": {"preset": "terse"},
    "strict": {"gate": "strict"},
    "terse+strict": {"preset": "terse", "gate": "strict"},
}
QUIET = {"idle_interval_s": 0}


def narrate(sandbox: PluginSandbox, case: Case, mode: str) -> list[str]:
    if "gate" in MODES[mode] and not HAS_GATE:
        pytest.skip("needs monologue-gate for the strict modes")
    sandbox.load("template", *(["gate"] if HAS_GATE else []))
    settings = {"narrator": "template", **MODES[mode], **(QUIET if HAS_GATE else {})}
    replayed = sandbox.replay(case.events, agent="coder", **settings)
    return [str(narrative.data["text"]) for narrative in replayed.narratives]


def test_every_finding_has_a_case() -> None:
    # Finding 11 (formats replay refuses) is the readers'; the others are the narrator's.
    assert {case.finding for case in CASES} >= set(range(1, 13)) - {11}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_narratives_state_only_what_the_events_show(
    monologue_plugins: PluginSandbox, case: Case, mode: str
) -> None:
    said = narrate(monologue_plugins, case, mode)
    assert said, "nothing was narrated"
    told = " ".join(said)
    for phrase in case.must_not:
        assert phrase not in told, f"{mode}: must not say {phrase!r}: {said}"
    for phrase in case.terse if mode.startswith("terse") else case.must:
        assert phrase in told, f"{mode}: must say {phrase!r}: {said}"
    if case.before and not mode.startswith("terse"):
        first, then = case.before
        assert told.index(first) < told.index(then), f"{mode}: out of order: {said}"
    if mode.startswith("terse"):
        assert all(len(line.split()) <= 10 for line in said), said


def test_replay_is_deterministic(monologue_plugins: PluginSandbox) -> None:
    case = CASES[-1]
    first = narrate(monologue_plugins, case, "default")
    for _ in range(20):
        assert narrate(monologue_plugins, case, "default") == first
