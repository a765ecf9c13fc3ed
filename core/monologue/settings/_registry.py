"""The one place the sources are layered: the core's settings and each plugin's model.

Plugins declare one settings model each through the ``register_settings`` hook; the caller
that knows the plugin set (a session, the CLI) passes them as ``models``. Keys are flat: a
key belongs to exactly one model, and a key no model declares is an error naming its file or
variable, with a "did you mean" suggestion.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from monologue.errors import ConfigError

from ._core import MonologueConfig, Resolved
from ._layers import ENV_PREFIX, Layer, gather
from ._validate import STRICT_HINT, env_name, keys, validate, warn_once

__all__ = ["CORE", "SettingRow", "describe_settings", "load_config", "owners"]

CORE = "core"
"""The owner ``monologue config`` shows for the core's own settings."""
_OFF = ("", "0", "false", "no", "off")
# How alike an unknown key must be to a known one to be suggested (difflib's ratio).
_CUTOFF = 0.75


def owners(models: Mapping[str, type[BaseModel]]) -> dict[str, str]:
    """``{key: owning plugin}`` for the core and ``models``; a key two declare is an error."""
    found = dict.fromkeys(keys(MonologueConfig), CORE)
    for plugin, model in models.items():
        for key in keys(model):
            if key in found:
                raise ConfigError(
                    f"setting {key} is declared by both {found[key]} and {plugin}; "
                    "uninstall one or ask its author to rename it"
                )
            found[key] = plugin
    return found


def _unknown(layer: Layer, key: str, known: Mapping[str, str]) -> str | None:
    """The one line for an unknown key, or ``None`` to pass over it silently: an unknown
    ``MONOLOGUE_*`` variable is reported only when it looks like a misspelt setting, since
    the environment is shared (a plugin not installed here, another tool's variable)."""
    near = difflib.get_close_matches(key, list(known), n=1, cutoff=_CUTOFF)
    if layer.is_env:
        if not near:
            return None
        return f"unknown setting {layer.names[key]}: did you mean {env_name(near[0])}?"
    hint = f": did you mean {near[0]}?" if near else " (no installed plugin declares it)"
    return f"unknown setting {key} in {layer.source}{hint}"


def load_config(
    overrides: Mapping[str, Any] | None = None,
    *,
    models: Mapping[str, type[BaseModel]] | None = None,
    source: str = "session() arguments",
    start: Path | None = None,
    environ: Mapping[str, str] | None = None,
    tolerant: bool = False,
) -> MonologueConfig:
    """The core's settings merged from every source, with each plugin model in ``models``
    resolved from the same sources (read them with :meth:`MonologueConfig.settings`).

    Without ``models`` the plugin set is unknown: keys are not checked, and plugin settings
    resolve when first read. A bad value or unknown key raises :class:`ConfigError`; with
    ``tolerant`` (sessions; unless ``MONOLOGUE_STRICT_CONFIG`` is set) it is logged once,
    and the setting runs on its default; an unreadable config file is logged and left out.
    """
    environ = os.environ if environ is None else environ
    strict = not tolerant or environ.get(f"{ENV_PREFIX}STRICT_CONFIG", "").lower() not in _OFF
    try:
        layers = gather(overrides, source, start=start, environ=environ)
    except ConfigError as exc:
        if strict:
            raise
        warn_once(f"{exc}; the session ignores that file ({STRICT_HINT})")
        layers = gather(overrides, source, start=start, environ=environ, files=False)
    known = owners(models) if models is not None else None
    given: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for layer in layers:
        for key, value in layer.values.items():
            problem = _unknown(layer, key, known) if known and key not in known else None
            if problem and strict:
                raise ConfigError(problem)
            if problem:
                warn_once(f"{problem}; the session ignores it ({STRICT_HINT})")
            elif known is None or key in known:
                given[key] = value
                sources[key] = f"env {layer.label(key)}" if layer.is_env else layer.label(key)
    config = validate(MonologueConfig, given, sources, tolerant=not strict)
    config.remember_sources(Resolved(given, sources, tolerant=not strict))
    for model in (models or {}).values():
        config.settings(model)  # a bad value is found (and warned about) now, not mid-run
    return config


@dataclass(frozen=True)
class SettingRow:
    """One line of ``monologue config``: a key, its effective value, where it came from and
    the plugin that declares it (``core`` for the core's own)."""

    key: str
    value: Any
    source: str
    plugin: str
    description: str = ""


def describe_settings(
    models: Mapping[str, type[BaseModel]], overrides: Mapping[str, Any] | None = None
) -> list[SettingRow]:
    """Every setting of the core and of each model, effective value and source, strictly
    checked (a bad value or unknown key raises :class:`ConfigError`)."""
    config = load_config(overrides, models=models, source="arguments")
    rows = _rows(CORE, config, config)
    for plugin, model in sorted(models.items()):
        rows += _rows(plugin, config, config.settings(model))
    return rows


def _rows(plugin: str, config: MonologueConfig, values: BaseModel) -> list[SettingRow]:
    from monologue.redact import redact

    effective = values.model_dump(by_alias=True)
    # The folders' defaults are computed; show what a session would use.
    effective.update(
        {"data_dir": config.resolved_data_dir(), "record_dir": config.resolved_record_dir()}
        if isinstance(values, MonologueConfig)
        else {}
    )
    fields = {info.alias or name: info for name, info in type(values).model_fields.items()}
    return [
        SettingRow(
            key,
            redact(effective[name]),
            config.source(key),
            plugin,
            fields[name].description or "",
        )
        for key, name in sorted(keys(type(values)).items())
    ]
