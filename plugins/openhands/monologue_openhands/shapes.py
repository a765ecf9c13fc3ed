"""The shape of one OpenHands event, as far as narration reads it (extra keys allowed)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["OpenHandsEvent", "ToolCallMetadata"]


class ToolCallMetadata(BaseModel):
    model_config = ConfigDict(extra="allow")

    function_name: str | None = None
    tool_call_id: str | None = None


class OpenHandsEvent(BaseModel):
    """An action (``action`` + ``args``) or an observation (``observation`` + ``content`` +
    ``extras``, ``cause`` = the id of the action it answers)."""

    model_config = ConfigDict(extra="allow")

    id: int
    timestamp: datetime | None = None
    source: str = "agent"
    message: str = ""
    action: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    observation: str | None = None
    content: str = ""
    extras: dict[str, Any] = Field(default_factory=dict)
    cause: int | None = None
    tool_call_metadata: ToolCallMetadata | None = None

    @model_validator(mode="after")
    def _action_or_observation(self) -> OpenHandsEvent:
        if (self.action is None) == (self.observation is None):
            raise ValueError("expected exactly one of 'action' and 'observation'")
        return self
