"""The buffer policy's settings: ``buffer_steps`` and ``buffer_intro`` (``[tool.monologue]``,
``MONOLOGUE_BUFFER_STEPS``, ``session(..., buffer_steps=3)``); the core layers and checks them.
"""

from __future__ import annotations

from pydantic import Field

from monologue.settings import PluginSettings, SettingsConfigDict


class BufferSettings(PluginSettings):
    """The policy's keys (``buffer_<field>``)."""

    model_config = SettingsConfigDict(env_prefix="MONOLOGUE_BUFFER_")

    steps: int = Field(
        3,
        ge=1,
        description="Finished steps (tool results, agent text) that make a narration worth "
        "asking for at a natural boundary.",
    )
    intro: bool = Field(
        True, description="Narrate as soon as min_buffer_size events wait, to introduce the work."
    )
