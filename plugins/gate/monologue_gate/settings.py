"""The gate's configuration keys, read from a session's config and validated here.

``gate`` (``assist`` | ``strict`` | ``llm``), ``idle_interval_s`` (seconds without a
narrative before the idle watchdog speaks; ``0`` turns it off), ``gate_window`` (how many
recent events the gate looks at) and ``controller_timeout_s`` (how long ``gate = "llm"``
waits for its controller, on the agent's thread). They come from ``[tool.monologue]``,
``MONOLOGUE_GATE`` and friends, ``-c KEY=VALUE`` or ``session(...)`` arguments, so values
may arrive as strings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from monologue.errors import ConfigError

from .policy import DEFAULT_WINDOW

if TYPE_CHECKING:
    from monologue.settings import MonologueConfig

Mode = Literal["assist", "strict", "llm"]
MODES: tuple[Mode, ...] = ("assist", "strict", "llm")
DEFAULT_IDLE_INTERVAL_S = 15.0
DEFAULT_CONTROLLER_TIMEOUT_S = 5.0
_WHERE = "set it in [tool.monologue], MONOLOGUE_{env}, -c {key}=... or session({key}=...)"


def _problem(key: str, value: Any, expected: str) -> ConfigError:
    where = _WHERE.format(env=key.upper(), key=key)
    return ConfigError(f"{key} = {value!r}: {expected} ({where})")


def _mode(value: Any) -> Mode:
    text = value.strip().lower() if isinstance(value, str) else value
    for mode in MODES:
        if text == mode:
            return mode
    raise _problem("gate", value, "must be 'assist', 'strict' or 'llm'")


def _seconds(value: Any, key: str, *, zero_ok: bool) -> float:
    try:
        if isinstance(value, bool):
            raise ValueError
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0 or (seconds == 0 and not zero_ok):
        expected = ">= 0 (0 turns it off)" if zero_ok else "> 0"
        raise _problem(key, value, f"must be a number of seconds {expected}")
    return seconds


def _window(value: Any) -> int:
    try:
        if isinstance(value, bool | float):
            raise ValueError
        window = int(value)
    except (TypeError, ValueError):
        window = 0
    if window < 1:
        raise _problem("gate_window", value, "must be a whole number of events >= 1")
    return window


@dataclass(frozen=True)
class GateSettings:
    """The validated gate settings of one session."""

    mode: Mode = "assist"
    idle_interval_s: float = DEFAULT_IDLE_INTERVAL_S
    window: int = DEFAULT_WINDOW
    controller_timeout_s: float = DEFAULT_CONTROLLER_TIMEOUT_S

    @classmethod
    def from_config(cls, config: MonologueConfig) -> GateSettings:
        """Read and validate the keys; a bad one raises ``ConfigError`` naming key and value."""
        return cls(
            mode=_mode(config.option("gate", "assist")),
            idle_interval_s=_seconds(
                config.option("idle_interval_s", DEFAULT_IDLE_INTERVAL_S),
                "idle_interval_s",
                zero_ok=True,
            ),
            window=_window(config.option("gate_window", DEFAULT_WINDOW)),
            controller_timeout_s=_seconds(
                config.option("controller_timeout_s", DEFAULT_CONTROLLER_TIMEOUT_S),
                "controller_timeout_s",
                zero_ok=False,
            ),
        )
