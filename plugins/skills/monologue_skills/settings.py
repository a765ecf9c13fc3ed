"""The plugin's settings, read from monologue's configuration (``[tool.monologue]``, env).

Bad values fail with one line naming the setting, its environment variable and the value
(:class:`~monologue.errors.ConfigError`). Durations (``tool_timeout``, ``tool_grace``) are
seconds (``10``, ``1.5``) or a duration (``30s``, ``2m``, ``1h30m``), parsed by pytimeparse2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from monologue.settings import load_config
from monologue.errors import ConfigError

from .runner import Limits

__all__ = ["limits", "state_history", "state_path", "tools_dir"]

_DEFAULT_HISTORY = 200
"""Change records kept in a state file: enough to tell who changed what lately."""


def _bad(key: str, value: Any, wanted: str) -> ConfigError:
    return ConfigError(f"setting {key} (MONOLOGUE_{key.upper()}) is {value!r}: {wanted}")


def _seconds(key: str, value: Any, *, zero_ok: bool = False) -> float:
    from pytimeparse2 import parse  # type: ignore[import-untyped]  # ships no type information

    seconds = value if isinstance(value, int | float) and not isinstance(value, bool) else None
    if seconds is None and isinstance(value, str):
        seconds = parse(value.strip())
    if seconds is None or seconds < 0 or (seconds == 0 and not zero_ok):
        raise _bad(key, value, "give seconds (10, 1.5) or a duration (30s, 2m)")
    return float(seconds)


def _count(key: str, value: Any, minimum: int) -> int:
    try:
        number = int(str(value).strip()) if not isinstance(value, bool) else None
    except ValueError:
        number = None
    if number is None or number < minimum:
        raise _bad(key, value, f"give a whole number of at least {minimum}")
    return number


def tools_dir() -> Path:
    """``tools_dir``: the folder whose executables are skills (default ``./tools``)."""
    return Path(load_config().option("tools_dir", "tools")).expanduser().absolute()


def state_path() -> Path | None:
    """``state_file``: where the state document lives, if in a file."""
    value = load_config().option("state_file")
    return Path(value).expanduser() if value else None


def state_history() -> int:
    """``state_history``: change records a state file keeps (default 200)."""
    return _count("state_history", load_config().option("state_history", _DEFAULT_HISTORY), 1)


def limits() -> Limits:
    """``tool_timeout``, ``tool_grace``, ``tool_stdout_cap``, ``tool_env_allow``."""
    config = load_config()
    allow = config.option("tool_env_allow", ())
    if isinstance(allow, str):
        allow = [name.strip() for name in allow.split(",") if name.strip()]
    return Limits(
        timeout=_seconds("tool_timeout", config.option("tool_timeout", 10.0)),
        grace=_seconds("tool_grace", config.option("tool_grace", 1.0), zero_ok=True),
        stdout_cap=_count("tool_stdout_cap", config.option("tool_stdout_cap", 1 << 20), 1),
        env_allow=frozenset(allow),
    )
