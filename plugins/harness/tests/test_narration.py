"""Narration only through the pipeline (SC-007), and every phase narrated by default (SC-003)."""

from __future__ import annotations

import ast
from pathlib import Path

import monologue_harness
from monologue_harness import TaskHarness
from pytest_monologue import PluginSandbox
from pytest_monologue.claude import FakeClaude

from monologue import Event, Session, hookimpl

PACKAGE = Path(monologue_harness.__file__).parent


class Watch:
    def __init__(self) -> None:
        self.events: list[Event] = []
        self.delivered: list[Event] = []

    @hookimpl
    def on_event(self, session: Session, event: Event) -> None:
        self.events.append(event)

    @hookimpl
    def on_narrative(self, session: Session, narrative: Event) -> None:
        self.delivered.append(narrative)


def test_no_harness_code_creates_a_narrative_event() -> None:
    """The string "narrative" is never an argument of a call in the package: it is only
    ever compared against (the display reads narratives; it never makes one)."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call):
                values = [*node.args, *(k.value for k in node.keywords)]
                if any(isinstance(v, ast.Constant) and v.value == "narrative" for v in values):
                    offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []


async def test_every_narrative_comes_from_the_pipeline_and_every_phase_speaks(
    plugins: PluginSandbox, three_tasks: Path, fake_claude: FakeClaude, tmp_path: Path
) -> None:
    """Default configuration, live: the template narrator (auto) under the buffer policy."""
    watch = plugins.register(Watch())
    statuses: list[Event] = []
    summary = await TaskHarness(
        three_tasks,
        cli_path=fake_claude.cli,
        checkpoint=tmp_path / "cp.json",
        listener=statuses.append,
    ).run()
    assert summary.ok
    narratives = [e for e in watch.events if e.type == "narrative"]
    # Every narrative event is one the session delivered from its narrator (SC-007)...
    assert [e.id for e in narratives] == [e.id for e in watch.delivered]
    assert all(e.data["narrator"] == "template" and e.data["covers"] for e in narratives)
    assert all(e.visibility == "user" for e in narratives)
    # ...the harness itself only says "status", internally...
    harness_events = [e for e in watch.events if e.agent == "harness"]
    assert {e.type for e in harness_events} == {"status", "completion"}
    assert all(e.visibility == "internal" for e in harness_events)
    # ...and parse, code and review are each narrated (SC-003).
    assert {e.agent for e in narratives} == {"parser", "coder", "reviewer"}
    # Every agent run (a session of its own) was narrated, whatever the batching.
    runs = {e.session_id for e in watch.events if e.agent != "harness"}
    assert len(runs) == 9
    assert {e.session_id for e in narratives} == runs
