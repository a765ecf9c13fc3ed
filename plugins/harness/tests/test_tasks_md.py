"""The offline reader of spec-kit tasks files."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness_fixtures import FIXTURES
from monologue_harness import TasksFileError, parse_tasks, parse_tasks_file


def test_sample_tasks_structure() -> None:
    parsed = parse_tasks_file(FIXTURES / "sample-tasks.md")
    assert [p.name for p in parsed.phases] == ["Setup", "Implementation", "Polish"]
    assert [t.id for t in parsed.tasks] == [f"T00{i}" for i in range(1, 9)]
    t001, t002 = parsed.task("T001"), parsed.task("T002")
    assert "hello" in t001.description and t001.status == "pending"
    assert t002.status == "complete" and t002.parallel
    assert not t001.parallel
    assert parsed.task("T004").dependencies == ["T001"]
    assert parsed.task("T007").dependencies == ["T004", "T005"]
    assert parsed.task("T004").description.endswith("tests/hello.test.ts")
    assert parsed.task("T004").file_paths == ["tests/hello.test.ts"]
    assert parsed.task("T005").validation_criteria == "Run tests and ensure all pass"
    assert parsed.phases[1].independent_test == (
        "The hello function should return the expected greeting string"
    )
    assert parsed.metadata is not None
    assert (parsed.metadata.complete_tasks, parsed.metadata.pending_tasks) == (1, 7)


def test_cycles_are_reported_in_metadata() -> None:
    text = "## Phase 1: A\n- [ ] T001 a (depends on T002)\n- [ ] T002 b (depends on T001)\n"
    parsed = parse_tasks(text)
    assert parsed.metadata is not None and parsed.metadata.cycles == [["T001", "T002"]]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- [ ] T001 orphan\n", "<tasks>:1: task before any '## Phase N' heading"),
        ("## Phase 1: A\n- [?] T001 x\n", "<tasks>:2: checkbox must be '[ ]' or '[X]', got '[?]'"),
        ("## Phase 1: A\n- [ ] do it\n", "<tasks>:2: a task needs an id like T001"),
        ("## Phase 1: A\n- [ ] T001 a\n- [ ] T001 b\n", "<tasks>:3: task id T001 appears twice"),
        ("## Phase 1: A\n- [ ] T001 a (depends on step one)\n", "depends on ['step one']"),
        ("## Phase 1: A\n- [ ] T001 [P]\n", "<tasks>:2: task T001 has no description"),
        ("# Nothing here\n", "<tasks>: no tasks found"),
    ],
)
def test_bad_input_names_the_line(text: str, message: str) -> None:
    with pytest.raises(TasksFileError, match=None) as caught:
        parse_tasks(text)
    assert message in str(caught.value)


def test_unreadable_file_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nope.md"
    with pytest.raises(TasksFileError, match=f"cannot read tasks file {missing}"):
        parse_tasks_file(missing)
