"""Settings: the core's and every plugin's, with where each value came from."""

from ._layers import (
    CONFIG_FILE_NAME,
    ENV_PREFIX,
    FIELD_NAMES,
    NON_CONFIG_ENV,
    Layer,
    MonologueConfig,
    PluginSettings,
    Preset,
    SettingRow,
    cli_overrides,
    describe_settings,
    env_layer,
    file_layer,
    find_config_file,
    load_config,
    merge_layers,
)

__all__ = [
    "CONFIG_FILE_NAME",
    "ENV_PREFIX",
    "FIELD_NAMES",
    "NON_CONFIG_ENV",
    "Layer",
    "MonologueConfig",
    "PluginSettings",
    "Preset",
    "SettingRow",
    "cli_overrides",
    "describe_settings",
    "env_layer",
    "file_layer",
    "find_config_file",
    "load_config",
    "merge_layers",
]
