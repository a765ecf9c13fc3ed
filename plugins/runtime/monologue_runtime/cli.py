"""``monologue tasks list | add | show``: look at and add to the task graph.

Only click is imported here; the store and its models load when a command runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from .graph import TaskGraph
    from .models import AgentTask
    from .store import TaskGraphStore

F = TypeVar("F", bound=Callable[..., Any])


def _data_dir_option(command: F) -> F:
    return click.option(
        "--data-dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Folder of tasks.graph.json (default: data_dir from the configuration, "
        "MONOLOGUE_DATA_DIR, else $XDG_DATA_HOME/monologue).",
    )(command)


def _json_option(command: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(command)


@contextmanager
def _open_store(data_dir: Path | None) -> Iterator[TaskGraphStore]:
    """The store, with graph errors (bad file, unknown task...) as clean CLI errors."""
    from monologue.errors import MonologueError

    from .store import TaskGraphStore

    try:
        yield TaskGraphStore(data_dir)
    except MonologueError as exc:
        raise click.ClickException(str(exc)) from exc


@click.group("tasks")
def tasks() -> None:
    """The agent task graph (tasks.graph.json in the data folder).

    Agents built on monologue-runtime claim these tasks; these commands show them and add
    new ones.
    """


@tasks.command("list")
@click.option(
    "--status", metavar="STATUS", help="Only this status: pending, in_progress, completed, failed."
)
@click.option("--type", "task_type", metavar="TYPE", help="Only tasks of this type.")
@_json_option
@_data_dir_option
def list_command(
    *, status: str | None, task_type: str | None, as_json: bool, data_dir: Path | None
) -> None:
    """List tasks in the order they were added (JSON: one object per line)."""
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
    with _open_store(data_dir) as store:
        graph = store.read()
    rows = [
        task
        for task in graph
        if (wanted is None or task.status is wanted)
        and (task_type is None or task.type == task_type)
    ]
    if as_json:
        for task in rows:
            click.echo(task.model_dump_json())
        return
    if not rows:
        click.echo(f"no tasks{' match' if len(graph) else ''} in {graph.path}")
        return
    click.echo(
        f"{'ID':<26}  {'STATUS':<11}  {'PRI':>4}  {'TYPE':<14}  {'OWNER':<12}  TRIES  WAITING ON"
    )
    for task in rows:
        waiting = ", ".join(graph.unmet_dependencies(task)) if task.status == "pending" else ""
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
    with _open_store(data_dir) as store:
        task = store.create(task_type, **fields)
    click.echo(task.model_dump_json() if as_json else task.id)


@tasks.command("show")
@click.argument("task_id", metavar="ID")
@_json_option
@_data_dir_option
def show_command(task_id: str, as_json: bool, data_dir: Path | None) -> None:
    """Show one task: its fields, what it waits on, its result or last error."""
    with _open_store(data_dir) as store:
        graph = store.read()
        task = graph.get(task_id)
    if as_json:
        click.echo(task.model_dump_json())
        return
    for label, value in _describe(task, graph):
        click.echo(f"{label + ':':<12} {value}")


def _describe(task: AgentTask, graph: TaskGraph) -> Iterator[tuple[str, str]]:
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
        unmet = set(graph.unmet_dependencies(task))
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
