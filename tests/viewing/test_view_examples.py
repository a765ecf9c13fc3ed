"""The committed example session replays: with its recorded narration, narrated anew, paced."""

from __future__ import annotations

import json

from pytest_monologue import MockNarrator
from viewing_support import EXAMPLES, Cli

EXAMPLE = EXAMPLES / "fix-retry-limit.monologue.jsonl"


def test_the_example_replays_with_its_recorded_narration(run_cli: Cli) -> None:
    result = run_cli("replay", "--json", "--recorded", str(EXAMPLE))

    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    summary = lines[-1]
    assert summary["tool_calls"] == 8 and summary["tool_errors"] == 1
    assert summary["narratives"] == len(lines) - 1 >= 3
    assert "retry limit is hard-coded" in " ".join(line.get("text", "") for line in lines)


def test_the_example_is_narrated_anew_by_the_narrator_in_effect(
    run_cli: Cli, mock_narrator: MockNarrator
) -> None:
    result = run_cli("replay", str(EXAMPLE))

    assert result.exit_code == 0
    narrated = [event.type for call in mock_narrator.calls for event in call.events]
    assert narrated.count("tool_call") == 8
    assert "narrative" not in narrated


def test_the_example_replays_paced(run_cli: Cli) -> None:
    # About 17 s of session at 50x: well under a second, through the real sleep.
    result = run_cli("replay", "--speed", "50", "--recorded", str(EXAMPLE))
    assert result.exit_code == 0
    assert len(result.stdout.splitlines()) >= 3
