"""The gate's settings, one model the core layers and checks (``monologue config`` lists them).

``gate`` (``assist`` | ``strict`` | ``llm``), ``idle_interval_s`` (seconds without a
narrative before the idle watchdog speaks; ``0`` turns it off), ``gate_window`` (how many
recent events the gate looks at) and ``controller_timeout_s`` (how long ``gate = "llm"``
waits for its controller, on the agent's thread). Values may arrive as strings (from
``MONOLOGUE_GATE`` and friends).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from monologue.settings import PluginSettings

from .policy import DEFAULT_WINDOW

Mode = Literal["assist", "strict", "llm"]
DEFAULT_IDLE_INTERVAL_S = 15.0
DEFAULT_CONTROLLER_TIMEOUT_S = 5.0


class GateSettings(PluginSettings):
    """The validated gate settings of one session."""

    mode: Mode = Field("assist", alias="gate", description="assist, strict or llm.")
    idle_interval_s: float = Field(
        DEFAULT_IDLE_INTERVAL_S,
        ge=0,
        allow_inf_nan=False,
        description="Seconds without a narrative before the idle watchdog speaks; 0 is off.",
    )
    window: int = Field(
        DEFAULT_WINDOW, ge=1, alias="gate_window", description="Recent events the gate reads."
    )
    controller_timeout_s: float = Field(
        DEFAULT_CONTROLLER_TIMEOUT_S,
        gt=0,
        allow_inf_nan=False,
        description="How long gate = llm waits for its controller, on the agent's thread.",
    )

    @field_validator("mode", mode="before")
    @classmethod
    def _any_case(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("idle_interval_s", "controller_timeout_s", "window", mode="before")
    @classmethod
    def _not_a_flag(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("must be a number, not true or false")
        return value
