"""``monologue skills list | run | plan``.

Only click is imported here; the registry, runner and planners load when a command runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from .models import Plan, PlanReport

F = TypeVar("F", bound=Callable[..., Any])


def _tools_dir_option(command: F) -> F:
    return click.option(
        "--tools-dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Folder of external tools (default: tools_dir setting, else ./tools).",
    )(command)


def _state_option(command: F) -> F:
    return click.option(
        "--state",
        "state_file",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="JSON state file (default: state_file setting, else in memory).",
    )(command)


@contextmanager
def _settings(tools_dir: Path | None) -> Iterator[None]:
    from monologue.settings import cli_overrides, load_config

    from .settings import SkillsSettings

    with cli_overrides({"tools_dir": str(tools_dir) if tools_dir else None}):
        # A bad setting stops the command here (one line, exit 2), before any plugin runs.
        load_config().settings(SkillsSettings)
        yield


@click.group("skills")
def skills() -> None:
    """Skills the narrator agent can use, external tools, and plans.

    Skills come from installed plugins and from the executables in the tools folder
    (`TOOL --describe` names them). A plan is JSON: {"actions": [{"id", "skill",
    "parameters", "depends_on"}]}.
    """


@skills.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON array of skills.")
@click.option("--nl", "as_lines", is_flag=True, help="One JSON object per line.")
@_tools_dir_option
def list_command(*, as_json: bool, as_lines: bool, tools_dir: Path | None) -> None:
    """Every registered skill, and the plugins that failed to load (a skill package that
    cannot be imported cannot say which skills it would bring)."""
    from monologue.cli import load_plugins

    with _settings(tools_dir):
        pm = load_plugins()
        rows: list[dict[str, Any]] = [
            {
                "name": spec.name,
                "plugin": spec.plugin,
                "status": "ok",
                "description": spec.description,
                "parameters": spec.parameters,
            }
            for spec in sorted(pm.hooks.skills().values(), key=lambda s: s.name)
        ]
        rows += [
            {"name": info.name, "plugin": info.name, "status": "failed", "error": info.error}
            for info in pm.plugin_infos()
            if info.status == "failed"
        ]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        if as_lines:
            click.echo(json.dumps(row))
        elif row["status"] == "failed":
            click.echo(f"{row['name']:<20} FAILED to load: {row['error']}")
        else:
            click.echo(f"{row['name']:<20} {row['plugin']:<12} {row['description']}")


def _print_report(report: PlanReport, as_json: bool) -> None:
    if as_json:
        click.echo(report.model_dump_json(indent=2))
        return
    for result in report.results:
        detail = result.error if result.error else json.dumps(result.output, default=str)
        click.echo(f"{result.status:<10} {result.id:<16} {result.skill:<14} {detail}")


def _execute(
    state_file: Path | None,
    concurrency: int,
    as_json: bool,
    *,
    plan: Plan | None = None,
    goal: str | None = None,
) -> None:
    """Run ``plan`` (or pursue ``goal``) in a narrated session; narratives go to stderr."""
    import monologue
    from monologue.cli import load_plugins

    from . import settings
    from .errors import PlanValidationError
    from .executor import run_plan
    from .planning import pursue
    from .progress import PlanBar
    from .state import StateStore
    from .validation import check_plan

    store = StateStore(state_file or settings.state_path())
    pm = load_plugins()
    if plan is not None:
        # Checked before the session starts: a plan that cannot run is the user's input to
        # fix, one message, not a session that ends in an error.
        checked, problems = check_plan(plan, pm.hooks.skills())
        if checked is None:
            raise click.ClickException(str(PlanValidationError(problems)))
    bar = PlanBar()
    with bar, monologue.session("skills", on_narrative=lambda e: bar.say(e.text)) as run:
        if plan is None:
            made, planner, report = pursue(
                run, goal or "", pm=pm, store=store, concurrency=concurrency, on_progress=bar
            )
            bar.say(f"plan by {planner}: {made.model_dump_json()}")
        else:
            report = run_plan(
                plan, pm=pm, store=store, session=run, concurrency=concurrency, on_progress=bar
            )
    _print_report(report, as_json)
    if not report.ok:
        raise SystemExit(1)


@skills.command("run")
@click.argument("name")
@click.option("--params", default="{}", help="The skill's parameters, as a JSON object.")
@_state_option
@_tools_dir_option
def run_command(*, name: str, params: str, state_file: Path | None, tools_dir: Path | None) -> None:
    """Run one skill, as a one-action plan; prints its result as JSON."""
    from .models import Action, Plan

    try:
        parameters = json.loads(params)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"not JSON: {exc}", param_hint="--params") from None
    if not isinstance(parameters, dict):
        raise click.BadParameter("must be a JSON object", param_hint="--params")
    plan = Plan(actions=[Action(id=name, skill=name, parameters=parameters)])
    with _settings(tools_dir):
        _execute(state_file, 1, True, plan=plan)


@skills.command("plan")
@click.argument("plan_file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--goal", help="Ask the planners for a plan towards this goal instead.")
@click.option("--concurrency", default=4, show_default=True, type=click.IntRange(1, 64))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@_state_option
@_tools_dir_option
def plan_command(
    *,
    plan_file: Path | None,
    goal: str | None,
    concurrency: int,
    as_json: bool,
    state_file: Path | None,
    tools_dir: Path | None,
) -> None:
    """Validate and run the plan in PLAN_FILE (or one the planners make for --goal)."""
    if (plan_file is None) == (goal is None):
        raise click.UsageError("give a PLAN_FILE or --goal, not both")
    with _settings(tools_dir):
        if plan_file is None:
            _execute(state_file, concurrency, as_json, goal=goal)
            return
        from monologue.cli import load_plugins

        from .errors import PlanValidationError
        from .validation import check_plan

        try:
            candidate = json.loads(plan_file.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise click.ClickException(f"{plan_file}: cannot read the plan: {exc}") from None
        plan, problems = check_plan(candidate, load_plugins().hooks.skills())
        if plan is None:
            raise click.ClickException(str(PlanValidationError(problems)))
        _execute(state_file, concurrency, as_json, plan=plan)
