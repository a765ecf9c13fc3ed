"""``monologue tasks list | add | show | prune``: look at, add to and prune the task graph.

Only click is imported here; the store and its models load when a command runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from .models import AgentTask
    from .storage import TaskStore

F = TypeVar("F", bound=Callable[..., Any])


def _duration(ctx: click.Context, param: click.Parameter, value: str) -> timedelta:
    """A duration as people write it (``30d``, ``12h``, ``1h30m``, ``3 weeks``; a bare number
    is seconds), read by pytimeparse2."""
    from pytimeparse2 import parse  # type: ignore[import-untyped]  # ships no type information

    # None for text it cannot read, and for numbers too big for a timedelta.
    seconds = parse(value.strip())
    if seconds is None or seconds < 0:
        raise click.BadParameter(
            f"{value!r} is not a duration: a number and a unit, such as 30d, 12h, 15m, 90s "
            "or 1h30m",
            ctx,
            param,
        )
    age = timedelta(seconds=seconds)
    try:
        datetime.now(UTC) - age  # what the stores compute: it must be a date
    except OverflowError:
        raise click.BadParameter(
            f"{value!r} is too long: it reaches back before the year 1", ctx, param
        ) from None
    return age


def _data_dir_option(command: F) -> F:
    command = click.option(
        "--data-dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Folder of tasks.graph.json (default: data_dir from the configuration, "
        "MONOLOGUE_DATA_DIR, else $XDG_DATA_HOME/monologue).",
    )(command)
    return click.option(
        "--store",
        metavar="file|URL",
        default=None,
        help="'file', or a postgresql:// URL (default: runtime_store from the configuration, "
        "MONOLOGUE_RUNTIME_STORE, else file).",
    )(command)


def _json_option(command: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(command)


@contextmanager
def _open_store(data_dir: Path | None, store: str | None) -> Iterator[TaskStore]:
    """The store, with graph errors (bad file, unknown task...) as clean CLI errors."""
    from monologue.errors import MonologueError

    from .stores import open_store

    try:
        opened = open_store(store, data_dir=data_dir)
        try:
            yield opened
        finally:
            opened.close()
    except MonologueError as exc:
        raise click.ClickException(str(exc)) from exc


@click.group("tasks")
def tasks() -> None:
    """The agent task graph (tasks.graph.json in the data folder, or the PostgreSQL
    database runtime_store names).

    Agents built on monologue-runtime claim these tasks; these commands show them and add
    new ones.
    """


@tasks.command("list")
@click.option(
    "--status", metavar="STATUS", help="Only this status: pending, in_progress, completed, failed."
)
@click.option("--type", "task_type", metavar="TYPE", help="Only tasks of this type.")
@click.option("--json", "as_json", is_flag=True, help="One JSON array of tasks.")
@click.option("--nl", "as_lines", is_flag=True, help="One JSON object per line.")
@_data_dir_option
def list_command(
    *,
    status: str | None,
    task_type: str | None,
    as_json: bool,
    as_lines: bool,
    data_dir: Path | None,
    store: str | None,
) -> None:
    """List tasks in the order they were added."""
    from .models import TaskStatus

    wanted = None
    if status is not None:
        try:
            wanted = TaskStatus(status.strip().lower())
        except ValueError:
            choices = ", ".join(s.value for s in TaskStatus)
            raise click.BadParameter(
                f"{status!r} is not a status (one of: {choices})", param_hint="--status"
            ) from None
    with _open_store(data_dir, store) as opened:
        everything = opened.list()
        where = opened.location
    rows = [
        task
        for task in everything
        if (wanted is None or task.status is wanted)
        and (task_type is None or task.type == task_type)
    ]
    if as_json:
        click.echo(json.dumps([task.model_dump(mode="json") for task in rows], indent=2))
        return
    if as_lines:
        for task in rows:
            click.echo(task.model_dump_json())
        return
    if not rows:
        click.echo(f"no tasks{' match' if everything else ''} in {where}")
        return
    done = {task.id for task in everything if task.status == "completed"}
    click.echo(
        f"{'ID':<26}  {'STATUS':<11}  {'PRI':>4}  {'TYPE':<14}  {'OWNER':<12}  TRIES  WAITING ON"
    )
    for task in rows:
        unmet = [dep for dep in task.dependency_ids if dep not in done]
        waiting = ", ".join(unmet) if task.status == "pending" else ""
        click.echo(
            f"{task.id:<26}  {task.status.value:<11}  {task.priority:>4}  {task.type:<14}  "
            f"{task.owner or '-':<12}  {task.attempt:>5}  {waiting}"
        )


@tasks.command("add")
@click.argument("task_type", metavar="TYPE")
@click.option("--input", "input_json", metavar="JSON", help="The task's input, a JSON object.")
@click.option("--context", "context_json", metavar="JSON", help="Context, a JSON object.")
@click.option("--metadata", "metadata_json", metavar="JSON", help="Metadata, a JSON object.")
@click.option("--priority", type=int, default=0, show_default=True, help="Higher runs first.")
@click.option(
    "--after",
    "dependency_ids",
    multiple=True,
    metavar="ID",
    help="A task that must be completed first (repeat for several).",
)
@click.option("--parent", "parent_id", metavar="ID", help="The task this one is part of.")
@click.option("--id", "task_id", metavar="ID", help="Choose the id (default: a new unique id).")
@_json_option
@_data_dir_option
def add_command(
    *,
    task_type: str,
    input_json: str | None,
    context_json: str | None,
    metadata_json: str | None,
    priority: int,
    dependency_ids: tuple[str, ...],
    parent_id: str | None,
    task_id: str | None,
    as_json: bool,
    data_dir: Path | None,
    store: str | None,
) -> None:
    """Add a PENDING task of TYPE and print its id."""
    fields: dict[str, Any] = {
        "input": _json_object(input_json, "--input"),
        "context": _json_object(context_json, "--context"),
        "metadata": _json_object(metadata_json, "--metadata"),
        "priority": priority,
        "dependency_ids": list(dependency_ids),
        "parent_id": parent_id,
    }
    if task_id is not None:
        fields["id"] = task_id
    with _open_store(data_dir, store) as opened:
        task = opened.create(task_type, **fields)
    click.echo(task.model_dump_json() if as_json else task.id)


@tasks.command("show")
@click.argument("task_id", metavar="ID")
@_json_option
@_data_dir_option
def show_command(task_id: str, as_json: bool, data_dir: Path | None, store: str | None) -> None:
    """Show one task: its fields, what it waits on, its result or last error."""
    with _open_store(data_dir, store) as opened:
        task = opened.get(task_id)
        unmet = set(opened.unmet_dependencies(task))
    if as_json:
        click.echo(task.model_dump_json())
        return
    for label, value in _describe(task, unmet):
        click.echo(f"{label + ':':<12} {value}")


@tasks.command("prune")
@click.option(
    "--older-than",
    "older_than",
    required=True,
    callback=_duration,
    metavar="DURATION",
    help="Archive finished tasks last changed longer ago than this: 30d, 12h, 15m, 90s, 1h30m.",
)
@_json_option
@_data_dir_option
def prune_command(
    older_than: timedelta, as_json: bool, data_dir: Path | None, store: str | None
) -> None:
    """Move COMPLETED and FAILED tasks out of the graph into its archive (tasks that
    unfinished tasks still depend on stay)."""
    with _open_store(data_dir, store) as opened:
        ids = opened.prune(older_than)
        where = opened.location
    if as_json:
        click.echo(json.dumps({"archived": ids}))
        return
    click.echo(f"archived {len(ids)} finished task{'s' if len(ids) != 1 else ''} from {where}")


def _describe(task: AgentTask, unmet: set[str]) -> Iterator[tuple[str, str]]:
    yield "id", task.id
    yield "type", task.type
    yield "status", task.status.value
    yield "owner", task.owner or "-"
    yield "priority", str(task.priority)
    yield "attempts", str(task.attempt)
    yield "created", task.created_at.isoformat()
    yield "updated", task.updated_at.isoformat()
    if task.heartbeat_at is not None:
        yield "heartbeat", task.heartbeat_at.isoformat()
    if task.parent_id is not None:
        yield "parent", task.parent_id
    if task.dependency_ids:
        yield (
            "depends on",
            ", ".join(
                f"{dep} ({'waiting' if dep in unmet else 'completed'})"
                for dep in task.dependency_ids
            ),
        )
    for label, data in (
        ("input", task.input),
        ("context", task.context),
        ("metadata", task.metadata),
    ):
        if data:
            yield label, json.dumps(data, ensure_ascii=False)
    if task.result is not None:
        yield "outcome", task.result.outcome
        if task.result.notes:
            yield "notes", task.result.notes
        if task.result.artifacts:
            yield "artifacts", json.dumps(task.result.artifacts, ensure_ascii=False)
        if task.result.next_actions:
            yield "next", "; ".join(task.result.next_actions)
    if task.error is not None:
        retry = " (retryable)" if task.error.retryable else ""
        yield "error", f"{task.error.reason}{retry}"


def _json_object(text: str | None, option: str) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise click.BadParameter(f"not valid JSON: {exc}", param_hint=option) from None
    if not isinstance(value, dict):
        raise click.BadParameter(
            f"must be a JSON object, got {type(value).__name__}", param_hint=option
        )
    return value
