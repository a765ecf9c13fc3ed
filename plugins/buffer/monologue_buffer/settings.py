"""The buffer policy's own settings, read from the session's configuration.

They are plugin keys (``[tool.monologue]``, ``MONOLOGUE_BUFFER_STEPS``, ``session(...,
buffer_steps=3)``), so they may arrive as text; a bad value is a :class:`ConfigError` naming
the key and the value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from monologue.errors import ConfigError

if TYPE_CHECKING:
    from monologue.settings import MonologueConfig


class BufferSettings(BaseModel):
    """The policy's keys, under their configuration names."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    steps: int = Field(3, ge=1, alias="buffer_steps")
    """Finished steps (tool results, agent text) that make a narration worth asking for at a
    natural boundary."""
    intro: bool = Field(True, alias="buffer_intro")
    """Narrate as soon as ``min_buffer_size`` events wait, to introduce the work."""

    @classmethod
    def from_config(cls, config: MonologueConfig) -> BufferSettings:
        keys = [field.alias for field in cls.model_fields.values() if field.alias]
        given = {key: config.option(key) for key in keys if config.option(key) is not None}
        try:
            return cls.model_validate(given)
        except ValidationError as exc:
            error = exc.errors(include_url=False)[0]
            key = str(error["loc"][0])
            raise ConfigError(f"{key} = {given.get(key)!r}: {error['msg']}") from None
