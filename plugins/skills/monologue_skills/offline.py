"""The offline planner: a deterministic plan from the goal and recent events, no model.

It puts the goal and the files the recent events touched on the status board, then, once
that is done, tells the person watching (``notify``). It plans only with skills that are
registered, and nothing when ``status`` is missing.
"""

from __future__ import annotations

from typing import Any

from monologue.digest import PATH_KEYS

__all__ = ["offline_plan"]


def _files(events: list[dict[str, Any]]) -> list[str]:
    files: list[str] = []
    for event in events:
        data = event.get("data") or {}
        tool_input = data.get("input") if isinstance(data, dict) else None
        if not isinstance(tool_input, dict):
            continue
        for key in PATH_KEYS:
            value = tool_input.get(key)
            if isinstance(value, str) and value not in files:
                files.append(value)
    return files


def offline_plan(context: Any) -> dict[str, Any] | None:
    """``{"actions": [...]}`` for ``context`` (a ``PlanContext``), or ``None``."""
    skills = context.skills
    if "status" not in skills:
        return None
    board: dict[str, Any] = {"task": context.goal}
    files = _files(context.events)
    if files:
        board["files_touched"] = files
    actions: list[dict[str, Any]] = [
        {"id": "status", "skill": "status", "parameters": board, "depends_on": []}
    ]
    if "notify" in skills:
        actions.append(
            {
                "id": "notify",
                "skill": "notify",
                "parameters": {"title": "monologue", "message": f"Working on: {context.goal}"},
                "depends_on": ["status"],
            }
        )
    return {"actions": actions}
