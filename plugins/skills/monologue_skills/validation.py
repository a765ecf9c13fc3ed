"""Check a whole plan before anything runs, and report every problem at once.

Each problem names the action (by id when it has one) and the path inside the plan:
shape errors, duplicate ids, unknown skills, parameters against the skill's JSON Schema,
unknown dependencies and dependency cycles.
"""

from __future__ import annotations

import graphlib
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from monologue import SkillSpec

from .models import Action, Plan

__all__ = ["check_plan"]


def _where(index: int, action_id: str | None, path: str) -> str:
    label = f"action {action_id!r}" if action_id else f"action #{index}"
    return f"{label} (actions[{index}]{path})"


def _loc(parts: tuple[int | str, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)


def _schema_problems(index: int, action: Action, spec: SkillSpec) -> list[str]:
    import jsonschema

    try:
        validator_class = jsonschema.validators.validator_for(spec.parameters)
        validator_class.check_schema(spec.parameters)
    except jsonschema.SchemaError as exc:
        where = _where(index, action.id, ".skill")
        return [f"{where}: skill {spec.name!r} has an invalid parameter schema: {exc.message}"]
    errors = validator_class(spec.parameters).iter_errors(action.parameters)
    return [
        f"{_where(index, action.id, '.parameters' + _loc(tuple(e.path)))}: {e.message}"
        for e in sorted(errors, key=lambda e: [str(p) for p in e.path])
    ]


def check_plan(candidate: Any, skills: Mapping[str, SkillSpec]) -> tuple[Plan | None, list[str]]:
    """The plan and no problems, or ``None`` and every problem found."""
    if isinstance(candidate, Plan):
        candidate = candidate.model_dump()
    if not isinstance(candidate, Mapping) or not isinstance(candidate.get("actions"), list):
        return None, ['the plan must be a JSON object with a list "actions"']
    extra = sorted(set(candidate) - {"actions"})
    problems = [f"the plan has unknown field(s): {', '.join(extra)}"] if extra else []
    actions: list[tuple[int, Action]] = []
    for index, raw in enumerate(candidate["actions"]):
        raw_id = raw.get("id") if isinstance(raw, Mapping) else None
        try:
            actions.append((index, Action.model_validate(raw)))
        except ValidationError as exc:
            for error in exc.errors():
                where = _where(
                    index, raw_id if isinstance(raw_id, str) else None, _loc(error["loc"])
                )
                problems.append(f"{where}: {error['msg']}")
    seen: dict[str, int] = {}
    for index, action in actions:
        where = _where(index, action.id, ".id")
        if action.id in seen:
            problems.append(f"{where}: duplicate id, also used by actions[{seen[action.id]}]")
        seen.setdefault(action.id, index)
    graph: dict[str, list[str]] = {}
    for index, action in actions:
        spec = skills.get(action.skill)
        if spec is None:
            known = ", ".join(sorted(skills)) or "none"
            problems.append(
                f"{_where(index, action.id, '.skill')}: unknown skill {action.skill!r} "
                f"(known: {known})"
            )
        else:
            problems += _schema_problems(index, action, spec)
        for position, dep in enumerate(action.depends_on):
            if dep not in seen:
                where = _where(index, action.id, f".depends_on[{position}]")
                problems.append(f"{where}: depends on unknown action {dep!r}")
        graph[action.id] = [d for d in action.depends_on if d in seen]
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        cycle = " -> ".join(repr(node) for node in exc.args[1])
        problems.append(f"actions depend on each other in a cycle: {cycle}")
    if problems:
        return None, problems
    return Plan(actions=[action for _, action in actions]), []
