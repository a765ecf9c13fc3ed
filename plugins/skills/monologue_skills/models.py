"""The pydantic models that cross the skill system's boundaries: plans, tool I/O, reports."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Action",
    "ActionResult",
    "Plan",
    "PlanReport",
    "ToolDescription",
    "ToolInput",
    "ToolOutput",
]


class Action(BaseModel):
    """One step of a plan: run ``skill`` with ``parameters`` after ``depends_on`` succeeded."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    id: str = Field(min_length=1)
    skill: str = Field(min_length=1)
    parameters: dict[str, Any] = Field(default_factory=dict)
    depends_on: list[str] = Field(default_factory=list)


class Plan(BaseModel):
    """What the narrator agent will do: actions, run in dependency order."""

    model_config = ConfigDict(extra="forbid")

    actions: list[Action]


class ToolInput(BaseModel):
    """What an external tool reads on stdin."""

    model_config = ConfigDict(extra="forbid")

    actionId: str
    skill: str
    parameters: dict[str, Any]
    state: Any
    sessionId: str | None


class ToolOutput(BaseModel):
    """What an external tool prints on stdout."""

    model_config = ConfigDict(extra="forbid")

    success: bool
    output: Any = None
    stateChanges: list[dict[str, Any]] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)


class ToolDescription(BaseModel):
    """What ``TOOL --describe`` prints: how the tool appears in ``monologue skills list``."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_.-]*$")
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=dict)
    timeout: float | None = Field(None, gt=0, description="Seconds; overrides tool_timeout.")


class ActionResult(BaseModel):
    """How one action of a plan ended."""

    model_config = ConfigDict(extra="forbid")

    id: str
    skill: str
    status: Literal["succeeded", "failed", "skipped"]
    output: Any = None
    error: str | None = None
    duration_s: float = 0.0


class PlanReport(BaseModel):
    """The per-action results of one plan, in the plan's order."""

    model_config = ConfigDict(extra="forbid")

    results: list[ActionResult]

    @property
    def ok(self) -> bool:
        return all(r.status == "succeeded" for r in self.results)
