"""The plugin's settings, read from monologue's configuration (``[tool.monologue]``, env)."""

from __future__ import annotations

from pathlib import Path

from monologue.config import load_config

from .runner import Limits

__all__ = ["limits", "state_path", "tools_dir"]


def tools_dir() -> Path:
    """``tools_dir``: the folder whose executables are skills (default ``./tools``)."""
    return Path(load_config().option("tools_dir", "tools")).expanduser().absolute()


def state_path() -> Path | None:
    """``state_file``: where the state document lives, if in a file."""
    value = load_config().option("state_file")
    return Path(value).expanduser() if value else None


def limits() -> Limits:
    """``tool_timeout``, ``tool_grace``, ``tool_stdout_cap``, ``tool_env_allow``."""
    config = load_config()
    allow = config.option("tool_env_allow", ())
    if isinstance(allow, str):
        allow = [name.strip() for name in allow.split(",") if name.strip()]
    return Limits(
        timeout=float(config.option("tool_timeout", 10.0)),
        grace=float(config.option("tool_grace", 1.0)),
        stdout_cap=int(config.option("tool_stdout_cap", 1 << 20)),
        env_allow=frozenset(allow),
    )
