"""Skill descriptions and results, exchanged through ``register_skills`` / ``execute_skill``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class SkillSpec(BaseModel):
    """A skill a plugin offers: its name, what it does, and its JSON-schema parameters."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_.-]*$")
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=dict)
    plugin: str = ""


class SkillCall(BaseModel):
    """A request to run a skill."""

    model_config = ConfigDict(extra="forbid")

    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    id: str = ""


class SkillResult(BaseModel):
    """The outcome of a skill call."""

    model_config = ConfigDict(extra="forbid")

    ok: bool
    output: Any = None
    error: str | None = None
