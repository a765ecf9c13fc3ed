"""The shapes of SWE-agent and mini-swe-agent files, as far as narration reads them.

Extra keys are allowed everywhere: both tools add fields from version to version, and only
what is read here must be right.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class Function(_Open):
    name: str
    arguments: str | dict[str, Any] = "{}"


class ToolCall(_Open):
    id: str
    function: Function


class HistoryMessage(_Open):
    """One chat message of a ``.traj`` ``history``."""

    role: str
    content: str | list[Any] | None = None
    tool_calls: list[ToolCall] | None = None
    tool_call_ids: list[str] | None = None
    is_demo: bool = False


class Step(_Open):
    """One step of a ``.traj`` ``trajectory``: what the agent thought, did and saw."""

    action: str
    observation: str | None = ""
    thought: str | None = ""
    response: str | None = ""
    state: dict[str, Any] | str | None = None


class Trajectory(_Open):
    """A SWE-agent ``.traj`` file, or a demonstration (``history`` only)."""

    trajectory: list[Step] = Field(default_factory=list)
    history: list[HistoryMessage] = Field(default_factory=list)
    info: dict[str, Any] = Field(default_factory=dict)


class ChatMessage(_Open):
    """One message of a mini-swe-agent trajectory."""

    role: str
    content: str | list[Any]


class MiniTrajectory(_Open):
    """A mini-swe-agent trajectory saved with its ``info`` (newer versions)."""

    messages: list[ChatMessage]
    info: dict[str, Any] = Field(default_factory=dict)
