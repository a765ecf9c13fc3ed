"""A plan's progress (issue 25): ``run_plan`` tells where it is from its own thread, and
``monologue skills plan`` shows it as a bar on a terminal and not at all when piped."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from monologue_skills.executor import PlanProgress, run_plan
from monologue_skills.models import Plan
from monologue_skills.progress import PlanBar
from monologue_skills.state import StateStore
from pytest_monologue import PluginSandbox
from rich.console import Console
from test_skills_plans import Recorder, act

from monologue.cli import cli

PLAN = {
    "actions": [
        act("s1", skill="slow"),
        act("s2", skill="slow"),
        act("s3", skill="slow"),
        act("broken", skill="fail"),
        act("after", deps=["broken"]),
    ]
}


@pytest.fixture
def recorder(skills_pm: PluginSandbox) -> Recorder:
    return skills_pm.register(Recorder(), "recorder")  # type: ignore[no-any-return]


def terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=100, color_system=None), out


def test_progress_is_told_from_the_plan_thread(
    skills_pm: PluginSandbox, recorder: Recorder
) -> None:
    steps: list[tuple[PlanProgress, int]] = []
    report = run_plan(
        Plan.model_validate(PLAN),
        pm=skills_pm.pm,
        store=StateStore(),
        concurrency=2,
        on_progress=lambda step: steps.append((step, threading.get_ident())),
    )
    assert not report.ok
    assert {thread for _, thread in steps} == {threading.get_ident()}  # never an action's
    done = [step.done for step, _ in steps]
    assert done == sorted(done) and steps[-1][0] == PlanProgress(5, 5, ())
    assert max(len(step.running) for step, _ in steps) == 2  # the concurrency
    assert all(step.total == 5 for step, _ in steps)


def test_a_terminal_shows_a_bar_with_what_runs(skills_pm: PluginSandbox) -> None:
    console, out = terminal()
    with PlanBar(console) as bar:
        bar(PlanProgress(1, 3, ("build", "lint")))
        bar.say("I'm running build and lint.")
    shown = out.getvalue()
    assert "I'm running build and lint." in shown
    assert "plan" in shown and "1/3" in shown and "running build, lint" in shown


def test_a_whole_plan_ends_with_a_full_bar(skills_pm: PluginSandbox, recorder: Recorder) -> None:
    console, out = terminal()
    with PlanBar(console) as bar:
        run_plan(Plan.model_validate(PLAN), pm=skills_pm.pm, store=StateStore(), on_progress=bar)
    last_frame = out.getvalue().rsplit("\r", 1)[-1]
    assert "5/5" in last_frame and "running" not in last_frame


def test_piped_output_gets_no_bar(
    skills_pm: PluginSandbox, recorder: Recorder, capsys: pytest.CaptureFixture[str]
) -> None:
    out = io.StringIO()
    with PlanBar(Console(file=out)) as bar:
        run_plan(Plan.model_validate(PLAN), pm=skills_pm.pm, store=StateStore(), on_progress=bar)
        bar.say("I'm done.")
    assert out.getvalue() == ""
    assert capsys.readouterr().err == "I'm done.\n"  # a plain line on standard error


def test_skills_plan_piped_prints_the_report_and_no_bar(
    skills_pm: PluginSandbox, recorder: Recorder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONOLOGUE_DATA_DIR", str(tmp_path / "data"))
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN))
    result = CliRunner().invoke(cli, ["skills", "plan", str(plan), "--json"])
    assert result.exit_code == 1, result.output  # "broken" failed
    report: dict[str, Any] = json.loads(result.stdout)
    assert [r["status"] for r in report["results"]] == [
        "succeeded",
        "succeeded",
        "succeeded",
        "failed",
        "skipped",
    ]
    assert "5/5" not in result.stderr and "━" not in result.stderr
