"""Settings: the core's (:class:`MonologueConfig`) and each plugin's (a
:class:`PluginSettings` model returned from the ``register_settings`` hook).

Sources, lowest first: the models' defaults; ``[tool.monologue]`` in the nearest
``pyproject.toml`` or a ``monologue.toml``; ``MONOLOGUE_<KEY>`` environment variables; CLI
flags (``-c KEY=VALUE``); keyword arguments to ``session()`` / ``@monologue(...)``. A session
resolves them once, when it starts (:func:`load_config`); a plugin reads its model with
``session.config.settings(TheModel)``. ``monologue config`` lists every setting with its
value, source and plugin.

An unknown key or a bad value is handled one way: the CLI (and :func:`load_config` unless
told ``tolerant``) raises :class:`~monologue.errors.ConfigError` naming the key, its file or
variable and the problem ("did you mean ...?" for a misspelt key); a session logs that once
and runs on the default. ``MONOLOGUE_STRICT_CONFIG=1`` makes a session strict too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._core import MonologueConfig, Preset
from ._layers import CONFIG_FILE_NAME, ENV_PREFIX, NON_SETTING_ENV, cli_overrides
from ._registry import CORE, SettingRow, describe_settings, load_config, owners

if TYPE_CHECKING:
    from ._plugin import PluginSettings, SettingsConfigDict

__all__ = [
    "CONFIG_FILE_NAME",
    "CORE",
    "ENV_PREFIX",
    "NON_SETTING_ENV",
    "MonologueConfig",
    "PluginSettings",
    "Preset",
    "SettingRow",
    "SettingsConfigDict",
    "cli_overrides",
    "describe_settings",
    "load_config",
    "owners",
]


def __getattr__(name: str) -> Any:
    # PEP 562: pydantic-settings loads only when a plugin's model is first needed.
    if name in ("PluginSettings", "SettingsConfigDict"):
        from . import _plugin

        return getattr(_plugin, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
