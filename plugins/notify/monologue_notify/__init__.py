"""monologue-notify: the ``notify`` skill, a desktop notification, else a line on stderr.

Installing it adds ``notify`` to ``monologue skills list``; uninstalling it removes exactly
that skill. The handler (:mod:`monologue_notify.notification`) loads only when it runs.
"""

from __future__ import annotations

from typing import Any

from monologue_skills.builtin import SkillPlugin

__all__ = ["NOTIFY_SCHEMA", "execute_skill", "register_skills"]

NOTIFY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "message": {"type": "string", "minLength": 1},
        "urgency": {"enum": ["low", "normal", "critical"]},
    },
    "required": ["message"],
    "additionalProperties": False,
}

_SKILL = SkillPlugin(
    "notify",
    "Show a desktop notification, else a line on stderr.",
    NOTIFY_SCHEMA,
    "monologue_notify.notification:notify",
)
register_hookspecs = _SKILL.register_hookspecs
register_skills = _SKILL.register_skills
execute_skill = _SKILL.execute_skill
