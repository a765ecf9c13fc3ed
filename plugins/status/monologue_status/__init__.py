"""monologue-status: the ``status`` skill, a status board in the skill state.

The board is ``/status`` in the state document: ``task`` (the current task),
``files_touched`` (in first-touched order, no repeats) and ``last_test`` (outcome and
summary of the last test run). Installing it adds ``status`` to ``monologue skills list``;
uninstalling it removes exactly that skill (the offline planner then plans nothing).
"""

from __future__ import annotations

from typing import Any

from monologue_skills.builtin import SkillPlugin

__all__ = ["STATUS_SCHEMA", "execute_skill", "register_skills"]

STATUS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "task": {"type": "string"},
        "files_touched": {"type": "array", "items": {"type": "string"}},
        "test_outcome": {"enum": ["passed", "failed", "error"]},
        "test_summary": {"type": "string"},
    },
    "additionalProperties": False,
    "minProperties": 1,
}

_SKILL = SkillPlugin(
    "status",
    "Update the status board: current task, files touched, last test outcome.",
    STATUS_SCHEMA,
    "monologue_status.board:status",
)
register_hookspecs = _SKILL.register_hookspecs
register_skills = _SKILL.register_skills
execute_skill = _SKILL.execute_skill
