"""Dependency order of tasks: a topological order, with cycles set apart, not fatal."""

from __future__ import annotations

import graphlib
from dataclasses import dataclass

from .models import Task

__all__ = ["TaskOrder", "order_tasks"]


@dataclass(frozen=True)
class TaskOrder:
    order: list[str]
    """Task ids that can run, each after the tasks it depends on."""
    cycles: list[list[str]]
    """Each dependency cycle, as the ids along it."""
    blocked: dict[str, str]
    """Tasks that cannot run (in or behind a cycle, or behind an unknown task): why."""


def order_tasks(tasks: list[Task]) -> TaskOrder:
    """Order ``tasks`` by their dependencies; ties keep file order."""
    known = {t.id for t in tasks}
    position = {t.id: i for i, t in enumerate(tasks)}
    graph = {t.id: [d for d in t.dependencies if d in known] for t in tasks}
    blocked: dict[str, str] = {}
    for task in tasks:
        unknown = [d for d in task.dependencies if d not in known]
        if unknown:
            blocked[task.id] = f"depends on unknown task {', '.join(unknown)}"
    cycles: list[list[str]] = []
    while True:
        sorter = graphlib.TopologicalSorter(graph)
        try:
            sorter.prepare()
        except graphlib.CycleError as exc:
            cycle = list(dict.fromkeys(exc.args[1]))
            cycles.append(cycle)
            for node in cycle:
                blocked[node] = f"in dependency cycle {' -> '.join([*cycle, cycle[0]])}"
                graph.pop(node)
            graph = {n: [d for d in deps if d in graph] for n, deps in graph.items()}
            continue
        break
    order: list[str] = []
    while sorter.is_active():
        ready = sorted(sorter.get_ready(), key=position.__getitem__)
        order.extend(ready)
        sorter.done(*ready)
    by_id = {t.id: t for t in tasks}
    runnable: list[str] = []
    for task_id in order:
        behind = [d for d in by_id[task_id].dependencies if d in blocked]
        if task_id not in blocked and behind:
            blocked[task_id] = f"waits on blocked task {', '.join(behind)}"
        if task_id not in blocked:
            runnable.append(task_id)
    return TaskOrder(runnable, cycles, blocked)
