"""Strict prompt rendering, prompts_dir overrides, and `monologue prompts list|show`."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from harness_fixtures import THREE_TASKS
from monologue_harness import CodingAgent, PromptRenderError, parse_tasks
from monologue_harness.agents import CodingContext
from monologue_harness.templates import CodingPrompt, ReviewPrompt, render
from pytest_monologue import PluginSandbox

from monologue.cli import cli

TASK = parse_tasks(THREE_TASKS).task("T002")
PARAMS = {
    "task_id": "T002",
    "description": "Add tests",
    "validation_criteria": None,
    "completed": "",
    "feedback": "",
    "attempt": 1,
}


def test_coding_prompt_renders_the_task_and_feedback_on_retries() -> None:
    agent = CodingAgent()
    first = agent.prompt(CodingContext(task=TASK))
    retry = agent.prompt(CodingContext(task=TASK, feedback="Cover empty names.", attempt=2))
    assert f"Task T002: {TASK.description}" in first and "attempt" not in first
    assert "This is attempt 2" in retry and "Cover empty names." in retry


def test_missing_parameter_is_named() -> None:
    with pytest.raises(PromptRenderError, match=r"prompt 'coding\.md': bad parameters: feedback"):
        render("coding.md", CodingPrompt, {k: v for k, v in PARAMS.items() if k != "feedback"})


def test_unknown_parameter_is_refused() -> None:
    with pytest.raises(PromptRenderError, match="extra_thing: Extra inputs are not permitted"):
        render("coding.md", CodingPrompt, {**PARAMS, "extra_thing": 1})


def test_override_using_an_undeclared_variable_is_named(tmp_path: Path) -> None:
    (tmp_path / "review.md").write_text("Review {{ task_id }} against {{ rubric }}.")
    params = {
        "task_id": "T1",
        "description": "d",
        "validation_criteria": None,
        "summary": "s",
        "handoff": None,
        "files_changed": "",
    }
    with pytest.raises(PromptRenderError, match="uses variable 'rubric', which ReviewPrompt"):
        render("review.md", ReviewPrompt, params, tmp_path)


def test_prompts_dir_overrides_by_name(tmp_path: Path) -> None:
    (tmp_path / "coding.md").write_text("Do {{ task_id }}, attempt {{ attempt }}.")
    assert (
        CodingAgent(prompts_dir=tmp_path).prompt(CodingContext(task=TASK)) == "Do T002, attempt 1."
    )


def test_template_syntax_error_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "coding.md").write_text("line one\n{% if %}\n")
    with pytest.raises(PromptRenderError, match=r"'coding\.md' line 2: template syntax error"):
        render("coding.md", CodingPrompt, PARAMS, tmp_path)


def test_prompts_list_and_show(
    plugins: PluginSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "review.md").write_text("My own review prompt.\n")
    monkeypatch.setenv("MONOLOGUE_PROMPTS_DIR", str(tmp_path))
    runner = CliRunner()
    listed = runner.invoke(cli, ["prompts", "list"])
    assert listed.exit_code == 0, listed.output
    rows = dict(line.split("\t") for line in listed.output.splitlines())
    assert rows["review.md"] == f"override: {tmp_path / 'review.md'}"
    assert rows["coding.md"].startswith("shipped: ") and "parser.md" in rows
    shown = runner.invoke(cli, ["prompts", "show", "review.md"])
    assert shown.output == "My own review prompt.\n"
    coding = runner.invoke(cli, ["prompts", "show", "coding.md"])
    assert "You are the coding agent" in coding.output
    missing = runner.invoke(cli, ["prompts", "show", "nope.md"])
    assert missing.exit_code == 1 and "prompt template 'nope.md' not found" in missing.output
