"""The committed example session: it replays, and it is what its script records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import EXAMPLES, Cli, recording_of
from monologue_recorder.reading import read_recording
from monologue_recorder.replay import NARRATION_TYPES
from recorder_example_session import EXAMPLE_NAME, fix_retry_limit

from monologue.events import Event
from monologue.testing import MockNarrator, PluginSandbox

EXAMPLE = EXAMPLES / EXAMPLE_NAME


def agent_steps(events: list[Event]) -> list[tuple[str, dict[str, Any]]]:
    """What the agent did, without what differs from run to run (ids, narration)."""
    steps = []
    for event in events:
        if event.type in NARRATION_TYPES:
            continue
        data = {k: v for k, v in event.data.items() if k != "tool_use_id"}
        steps.append((event.type, data))
    return steps


def test_the_example_is_what_its_script_records(recorder: PluginSandbox, record_dir: Path) -> None:
    with recorder.session("coder", narrator="none") as s:
        fix_retry_limit(s, pause=lambda seconds: None)

    recorded = list(read_recording(recording_of(record_dir, s.id)))
    assert agent_steps(list(read_recording(EXAMPLE))) == agent_steps(recorded)


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
