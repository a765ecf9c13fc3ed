"""Regenerate examples/harness/recordings: a live run of examples/harness/tasks.md through the
SDK's real query() and the scripted fake ``claude`` CLI, recorded, then the narratives taken
out of the recordings: the example's replay narrates with the installed narrator (its
golden output is tests/fixtures/example-narration.txt, see test_cli.py).

    MONOLOGUE_NO_CONFIG_FILE=1 .tox/harness/bin/python plugins/harness/tests/make_example.py

test_example.py fails with the missing-recording error when a prompt changed since.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from pathlib import Path

from harness_fixtures import THREE_TASKS, three_task_scenarios
from monologue_harness import AgentMode, TaskHarness, parse_tasks
from pytest_monologue.claude import FakeClaude

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "harness"


async def main() -> None:
    tasks = EXAMPLE / "tasks.md"
    if tasks.read_text(encoding="utf-8") != THREE_TASKS:
        raise SystemExit(f"{tasks} differs from the scripted scenarios' THREE_TASKS")
    parsed = parse_tasks(THREE_TASKS, source="tasks.md").model_dump(mode="json", by_alias=True)
    store = EXAMPLE / "recordings"
    shutil.rmtree(store, ignore_errors=True)
    with tempfile.TemporaryDirectory() as scratch:
        fake = FakeClaude.create(Path(scratch) / "fake", three_task_scenarios(parsed))
        summary = await TaskHarness(
            tasks,
            mode=AgentMode(kind="record", store=store),
            cli_path=fake.cli,
            checkpoint=Path(scratch) / "checkpoint.json",
        ).run()
    print(summary.report())
    for recording in store.rglob("*.json"):
        document = json.loads(recording.read_text(encoding="utf-8"))
        document["metadata"].pop("narratives", None)
        recording.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
