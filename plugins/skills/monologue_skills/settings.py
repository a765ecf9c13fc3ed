"""The plugin's settings, one model the core layers and checks (``monologue config``).

Durations (``tool_timeout``, ``tool_grace``) are seconds (``10``, ``1.5``) or a duration
(``30s``, ``2m``, ``1h30m``), parsed by pytimeparse2. Inside a session they come from the
session's configuration, so ``monologue.session(..., tools_dir=...)`` is honoured; elsewhere
(the ``monologue skills`` commands, which refuse a bad value) from the sources in effect.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from monologue import MonologueConfig, current
from monologue.settings import PluginSettings, load_config

from .runner import Limits

__all__ = ["SkillsSettings", "limits", "settings", "state_history", "state_path", "tools_dir"]


def _duration(value: Any) -> Any:
    if isinstance(value, str):
        from pytimeparse2 import parse  # type: ignore[import-untyped]  # ships no type information

        parsed = parse(value.strip())
        if parsed is None:
            raise ValueError("give seconds (10, 1.5) or a duration (30s, 2m)")
        return parsed
    if isinstance(value, bool):
        raise ValueError("give seconds (10, 1.5) or a duration (30s, 2m)")
    return value


def _names(value: Any) -> Any:
    if isinstance(value, str):
        return [name.strip() for name in value.split(",") if name.strip()]
    return value


Seconds = Annotated[float, BeforeValidator(_duration)]


class SkillsSettings(PluginSettings):
    """Where the external tools are, what they run under, and where the state lives."""

    tools_dir: Path = Field(Path("tools"), description="Folder whose executables are skills.")
    tool_timeout: Seconds = Field(10.0, gt=0, description="Longest a tool may run.")
    tool_grace: Seconds = Field(
        1.0, ge=0, description="Wait between asking a timed-out tool to stop and killing it."
    )
    tool_stdout_cap: int = Field(1 << 20, ge=1, description="Bytes of a tool's output kept.")
    tool_env_allow: Annotated[frozenset[str], BeforeValidator(_names)] = Field(
        frozenset(), description="Secret-looking variables a tool may still see (comma list)."
    )
    state_file: Path | None = Field(
        None, description="JSON file holding the skills' state (default: in memory)."
    )
    state_history: int = Field(200, ge=1, description="Change records a state file keeps.")


def settings(config: MonologueConfig | None = None) -> SkillsSettings:
    """The settings of ``config``, else of the current session, else of the sources in
    effect (the CLI's flags included), read as a session reads them: a bad value is warned
    about and runs on its default (the ``monologue skills`` commands check strictly first)."""
    if config is None:
        session = current()
        config = session.config if session is not None else load_config(tolerant=True)
    return config.settings(SkillsSettings)


def tools_dir(config: MonologueConfig | None = None) -> Path:
    """``tools_dir``: the folder whose executables are skills (default ``./tools``)."""
    return settings(config).tools_dir.expanduser().absolute()


def state_path(config: MonologueConfig | None = None) -> Path | None:
    """``state_file``: where the state document lives, if in a file."""
    path = settings(config).state_file
    return path.expanduser() if path else None


def state_history(config: MonologueConfig | None = None) -> int:
    """``state_history``: change records a state file keeps (default 200)."""
    return settings(config).state_history


def limits(config: MonologueConfig | None = None) -> Limits:
    """``tool_timeout``, ``tool_grace``, ``tool_stdout_cap``, ``tool_env_allow``."""
    found = settings(config)
    return Limits(
        timeout=found.tool_timeout,
        grace=found.tool_grace,
        stdout_cap=found.tool_stdout_cap,
        env_allow=found.tool_env_allow,
    )
