"""monologue-webhook: the ``webhook`` skill, a narrative POSTed as JSON to a URL.

Installing it adds ``webhook`` to ``monologue skills list``; uninstalling it removes exactly
that skill. The handler (:mod:`monologue_webhook.post`, on httpx) loads only when it runs.
"""

from __future__ import annotations

from typing import Any

from monologue_skills.builtin import SkillPlugin

__all__ = ["WEBHOOK_SCHEMA", "execute_skill", "register_skills"]

WEBHOOK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "url": {"type": "string", "pattern": "^https?://"},
        "text": {"type": "string"},
        "retries": {"type": "integer", "minimum": 0, "maximum": 10},
        "timeout": {"type": "number", "exclusiveMinimum": 0},
    },
    "required": ["url", "text"],
    "additionalProperties": False,
}

_SKILL = SkillPlugin(
    "webhook",
    "POST a narrative to a URL, with retries.",
    WEBHOOK_SCHEMA,
    "monologue_webhook.post:webhook",
)
register_hookspecs = _SKILL.register_hookspecs
register_skills = _SKILL.register_skills
execute_skill = _SKILL.execute_skill
