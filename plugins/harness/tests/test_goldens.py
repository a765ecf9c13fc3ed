"""Golden recordings (raw SDK messages in one JSON file) replay through the SDK's query().

The fixtures are copies of two of ../shared/traces/agent-sdk-golden; the whole shared set is
checked too when it is present.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from harness_fixtures import FIXTURES, SHARED_GOLDEN
from monologue_harness import AgentMode, CodingAgent, ParserAgent, parse_tasks_file
from monologue_harness.agents import CodingContext, ParserContext
from pytest_monologue import PluginSandbox

GOLDEN = FIXTURES / "golden"
SAMPLE = FIXTURES / "sample-tasks.md"
CONTEXT = ParserContext(tasks_markdown=SAMPLE.read_text(), source_path="sample-tasks.md")


def shared(folder: str) -> list[Path]:
    directory = SHARED_GOLDEN / folder
    return sorted(directory.glob("*.json")) if directory.is_dir() else []


async def test_parser_golden_gives_the_sample_structure(plugins: PluginSandbox) -> None:
    agent = ParserAgent(
        mode=AgentMode(kind="replay", file=GOLDEN / "parser-sample-tasks-basic.json")
    )
    parsed = await agent.execute(CONTEXT)
    assert (len(parsed.tasks), len(parsed.phases)) == (8, 3)
    assert "hello" in parsed.task("T001").description.lower()
    assert parsed.task("T001").status == "pending"
    assert parsed.task("T002").status == "complete"
    assert parsed.task("T004").dependencies == ["T001"]
    assert parsed.task("T007").dependencies == ["T004", "T005"]
    # The offline reader gives the same structure with no model at all.
    assert parsed.tasks == parse_tasks_file(SAMPLE).tasks
    assert parsed.phases == parse_tasks_file(SAMPLE).phases


async def test_coding_golden_gives_a_typed_result(plugins: PluginSandbox) -> None:
    task = parse_tasks_file(SAMPLE).task("T001")
    agent = CodingAgent(mode=AgentMode(kind="replay", file=GOLDEN / "coding-add-two-numbers.json"))
    done = await agent.complete(CodingContext(task=task))
    assert done.result.stop_reason == "failed"
    # Its two Write calls were refused permission, so nothing was changed.
    assert done.result.files_changed == []
    assert done.usage.cost_usd == pytest.approx(0.09513265)
    assert done.usage.output_tokens == 1285


@pytest.mark.parametrize("golden", shared("parser-agent"), ids=lambda p: p.stem)
async def test_shared_parser_goldens(plugins: PluginSandbox, golden: Path) -> None:
    parsed = await ParserAgent(mode=AgentMode(kind="replay", file=golden)).execute(CONTEXT)
    offline = parse_tasks_file(SHARED_GOLDEN / "sample-tasks.md")
    # The models wrote their own validation criteria in one scenario; the rest must agree.
    strip = {"validation_criteria"}
    assert [t.model_dump(exclude=strip) for t in parsed.tasks] == [
        t.model_dump(exclude=strip) for t in offline.tasks
    ]
    assert parsed.phases == offline.phases
