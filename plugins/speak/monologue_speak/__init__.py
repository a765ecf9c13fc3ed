"""monologue-speak: the ``speak`` skill, a sentence said aloud through espeak-ng.

Installing it adds ``speak`` to ``monologue skills list``; uninstalling it removes exactly
that skill. The handler (:mod:`monologue_speak.speech`) loads only when the skill runs.
"""

from __future__ import annotations

from typing import Any

from monologue_skills.builtin import SkillPlugin

__all__ = ["SPEAK_SCHEMA", "execute_skill", "register_skills"]

SPEAK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "minLength": 1},
        "voice": {"type": "string"},
        "wav": {"type": "string", "description": "Write a WAV file here instead of playing."},
    },
    "required": ["text"],
    "additionalProperties": False,
}

_SKILL = SkillPlugin(
    "speak", "Say a sentence aloud (espeak-ng).", SPEAK_SCHEMA, "monologue_speak.speech:speak"
)
register_hookspecs = _SKILL.register_hookspecs
register_skills = _SKILL.register_skills
execute_skill = _SKILL.execute_skill
