"""Failure paths: a dependency cycle, a coder that crashes, a reviewer that times out,
low-confidence rejections, the retry limit, fail-fast and continue-on-failure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness_fixtures import coder, reviewer, scenario, text
from monologue_harness import TaskHarness
from monologue_harness.summary import HarnessSummary
from pytest_monologue import PluginSandbox
from pytest_monologue.claude import FakeClaude

from monologue import Event

TWO = "## Phase 1: A\n\n- [ ] T001 First thing\n- [ ] T002 Second thing\n"


async def harness_run(
    tmp: Path, tasks: str, scenarios: list[dict[str, Any]], **settings: Any
) -> tuple[HarnessSummary, list[Event], list[str]]:
    path = tmp / "tasks.md"
    path.write_text(tasks)
    fake = FakeClaude.create(tmp / "fake", scenarios)
    seen: list[Event] = []
    summary = await TaskHarness(
        path,
        parse="offline",
        cli_path=fake.cli,
        checkpoint=tmp / "cp.json",
        listener=seen.append,
        **settings,
    ).run()
    return summary, [e for e in seen if e.type == "status"], fake.prompts()


def approve_all(*tasks: str) -> list[dict[str, Any]]:
    return [
        s
        for t in tasks
        for s in (coder(t, "On it.", "a.py", f"Did {t}."), reviewer(t, "approve", "Fine."))
    ]


async def test_cycle_is_reported_and_the_rest_still_runs(
    plugins: PluginSandbox, tmp_path: Path
) -> None:
    tasks = (
        "## Phase 1: A\n\n- [ ] T001 a (depends on T002)\n- [ ] T002 b (depends on T001)\n"
        "- [ ] T003 c\n- [ ] T004 d (depends on T003)\n- [ ] T005 e (depends on T002)\n"
    )
    summary, statuses, _ = await harness_run(tmp_path, tasks, approve_all("T003", "T004"))
    assert summary.cycles == [["T001", "T002"]]
    cycle_events = [e.data for e in statuses if e.data["step"] == "dependency_cycle"]
    assert [e["tasks"] for e in cycle_events] == [["T001", "T002"]]
    states = {k: v.status for k, v in summary.tasks.items()}
    assert states == {
        "T003": "validated",
        "T004": "validated",
        "T001": "blocked",
        "T002": "blocked",
        "T005": "blocked",
    }
    assert "in dependency cycle T001 -> T002 -> T001" in str(summary.tasks["T001"].reason)
    assert summary.tasks["T005"].reason == "waits on blocked task T002"
    assert not summary.ok


async def test_coder_that_crashes_fails_its_task_and_stops_the_run(
    plugins: PluginSandbox, tmp_path: Path
) -> None:
    crash = scenario(["You are the coding agent", "Task T001:"], text("Starting."), {"exit": 1})
    summary, _, prompts = await harness_run(tmp_path, TWO, [crash, *approve_all("T002")])
    assert summary.tasks["T001"].status == "failed"
    assert "exit code" in str(summary.tasks["T001"].reason)
    assert summary.tasks["T002"].status == "not_run"
    assert summary.stopped_early
    assert not any("Task T002:" in p for p in prompts)


async def test_continue_on_failure_runs_the_other_tasks(
    plugins: PluginSandbox, tmp_path: Path
) -> None:
    crash = scenario(["You are the coding agent", "Task T001:"], text("Starting."), {"exit": 1})
    tasks = TWO + "- [ ] T003 Third (depends on T001)\n"
    summary, _, _ = await harness_run(
        tmp_path, tasks, [crash, *approve_all("T002")], continue_on_failure=True
    )
    states = {k: v.status for k, v in summary.tasks.items()}
    assert states == {"T001": "failed", "T002": "validated", "T003": "blocked"}
    assert summary.tasks["T003"].reason == "waits on unfinished task T001"
    assert summary.counts() == {
        "total": 3,
        "validated": 1,
        "failed": 1,
        "blocked": 1,
        "complete": 0,
        "not_run": 0,
    }


async def test_reviewer_that_times_out_fails_its_task(
    plugins: PluginSandbox, tmp_path: Path
) -> None:
    hang = scenario(["You are the review agent", "Task T001:"], text("Looking."), {"sleep": 30})
    summary, _, _ = await harness_run(
        tmp_path,
        TWO,
        [coder("T001", "On it.", "a.py", "Did T001."), hang],
        agent_timeout_s=2.5,
    )
    assert summary.tasks["T001"].status == "failed"
    assert summary.tasks["T001"].reason == "TimeoutError: reviewer timed out after 2.5s"
    assert summary.duration_s < 15


async def test_low_confidence_rejection_stops_retrying(
    plugins: PluginSandbox, tmp_path: Path
) -> None:
    scenarios = [
        coder("T001", "On it.", "a.py", "Did T001."),
        reviewer("T001", "reject", "Wrong file.", confidence=0.2),
    ]
    summary, _, prompts = await harness_run(tmp_path, TWO, scenarios, max_retries=3)
    state = summary.tasks["T001"]
    assert (state.status, state.attempts, state.retries) == ("failed", 1, 0)
    assert state.reason == "rejected with low confidence (0.20): Wrong file."
    assert sum("You are the coding agent" in p for p in prompts) == 1


async def test_retry_limit_reruns_the_coder_with_feedback(
    plugins: PluginSandbox, tmp_path: Path
) -> None:
    scenarios = [
        coder("T001", "On it.", "a.py", "Did T001."),
        reviewer("T001", "reject", "Wrong file."),
    ]
    summary, statuses, prompts = await harness_run(tmp_path, TWO, scenarios, max_retries=2)
    state = summary.tasks["T001"]
    assert (state.status, state.attempts, state.retries) == ("failed", 3, 2)
    assert state.reason == "rejected 3 times; last feedback: Wrong file."
    coding = [p for p in prompts if "You are the coding agent" in p]
    assert len(coding) == 3 and "Wrong file." not in coding[0]
    assert all(
        "Wrong file." in p and f"attempt {n}" in p for n, p in zip((2, 3), coding[1:], strict=True)
    )
    assert summary.retries == 2
    assert [e.data["attempt"] for e in statuses if e.data["step"] == "task_rejected"] == [1, 2]
