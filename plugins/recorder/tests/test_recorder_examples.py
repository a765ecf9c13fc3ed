"""The committed example session is what its script records (the core's viewing tests
replay it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import EXAMPLES, recording_of
from pytest_monologue import PluginSandbox
from recorder_example_session import EXAMPLE_NAME, fix_retry_limit

from monologue.events import Event
from monologue.recording import read_recording

EXAMPLE = EXAMPLES / EXAMPLE_NAME
# What a narrator and its gate produce: differs from run to run.
NARRATION_TYPES = frozenset({"narrative", "narration_suppressed", "summary_refresh"})


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
