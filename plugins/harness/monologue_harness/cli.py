"""``monologue harness run`` and ``monologue prompts list|show``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from .summary import HarnessSummary

__all__ = ["harness", "prompts"]

_existing_file = click.Path(exists=True, dir_okay=False, path_type=Path)
_folder = click.Path(file_okay=False, path_type=Path)


@click.group()
def harness() -> None:
    """Parse → code → review task harness on the Claude Agent SDK."""


@harness.command("run")
@click.argument("tasks_file", type=_existing_file)
@click.option("--record", type=_folder, help="Run live and record every agent run here.")
@click.option(
    "--replay",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Replay agent runs recorded here: no network, no API key.",
)
@click.option("--continue-on-failure", is_flag=True, help="Go on after a failed task.")
@click.option("--resume", is_flag=True, help="Skip tasks the checkpoint says are validated.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON only.")
@click.option("--checkpoint", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--offline-parse", is_flag=True, help="Parse with the offline reader, no agent.")
@click.option("--max-retries", type=click.IntRange(min=0), default=2, show_default=True)
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), help="Per agent run, s.")
@click.option("--cli-path", type=_existing_file, help="The claude CLI to run (live/record).")
def run(
    *,
    tasks_file: Path,
    record: Path | None,
    replay: Path | None,
    continue_on_failure: bool,
    resume: bool,
    as_json: bool,
    checkpoint: Path | None,
    offline_parse: bool,
    max_retries: int,
    timeout: float | None,
    cli_path: Path | None,
) -> None:
    """Run the tasks of TASKS_FILE: each coded, then reviewed, in dependency order."""
    from rich.console import Console

    from .agent import AgentMode
    from .display import HarnessDisplay
    from .errors import HarnessError
    from .harness import TaskHarness

    if record and replay:
        raise click.UsageError("--record and --replay exclude each other")
    if replay:
        mode = AgentMode(kind="replay", store=replay)
    else:
        mode = AgentMode(kind="record", store=record) if record else AgentMode()
    console = Console(stderr=as_json)
    display = HarnessDisplay(console)
    task_harness = TaskHarness(
        tasks_file,
        mode=mode,
        parse="offline" if offline_parse else "agent",
        max_retries=max_retries,
        continue_on_failure=continue_on_failure,
        checkpoint=checkpoint,
        resume=resume,
        agent_timeout_s=timeout,
        # With --json, standard output is the report alone: the view goes to standard error,
        # and only when that is a terminal (a bar there; no lines in a pipe).
        listener=display if console.is_terminal or not as_json else None,
        cli_path=cli_path,
    )
    import asyncio  # here, not at the top: `monologue --help` imports this module

    try:
        with display:
            summary = asyncio.run(task_harness.run())
    except HarnessError as exc:
        raise click.ClickException(str(exc)) from None
    report = summary.report()
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        counts = ", ".join(f"{v} {k}" for k, v in summary.counts().items() if v)
        console.print(
            f"{counts}; {summary.retries} retries; {report['duration_s']}s; "
            f"{summary.usage.input_tokens} in / {summary.usage.output_tokens} out tokens; "
            f"${summary.usage.cost_usd:.4f}",
            highlight=False,
        )
        _say_what_was_written(summary)
    if not summary.ok:
        raise SystemExit(1)


def _say_what_was_written(summary: HarnessSummary) -> None:
    """Name every file the run left behind, on standard error (``--json`` has them in the
    report): nothing is written where the user was not told."""
    if summary.recordings:
        folders = sorted({str(Path(path).parent) for path in summary.recordings})
        count = len(summary.recordings)
        click.echo(
            f"monologue: recorded {count} session{'s' if count > 1 else ''} in "
            f"{', '.join(folders)} (monologue sessions lists them)",
            err=True,
        )
    if summary.checkpoint:
        click.echo(f"monologue: checkpoint in {summary.checkpoint} (for --resume)", err=True)


@click.group()
def prompts() -> None:
    """The prompt templates: shipped ones and the overrides in ``prompts_dir``."""


def _prompt_folders() -> list[tuple[str, Path]]:
    from monologue import load_config
    from monologue.prompts import shipped_prompts_dir

    override = load_config().prompts_dir
    folders = [("override", override)] if override else []
    return [*folders, ("shipped", shipped_prompts_dir())]


@prompts.command("list")
def list_prompts() -> None:
    """Every template name, and where it is loaded from (an override wins)."""
    seen: dict[str, str] = {}
    for origin, folder in _prompt_folders():
        for path in sorted(folder.rglob("*.md")) if folder.is_dir() else []:
            seen.setdefault(path.relative_to(folder).as_posix(), f"{origin}: {path}")
    for name, where in sorted(seen.items()):
        click.echo(f"{name}\t{where}")


@prompts.command("show")
@click.argument("name")
def show_prompt(name: str) -> None:
    """The source of template NAME (e.g. coding.md), as it will be loaded."""
    from monologue import load_config
    from monologue.prompts import get_template

    try:
        template = get_template(name, load_config().prompts_dir)
    except LookupError as exc:
        raise click.ClickException(str(exc)) from None
    assert template.filename is not None
    click.echo(Path(template.filename).read_text(encoding="utf-8"), nl=False)
