"""``MonologueConfig`` and where its values come from.

Sources, lowest first: defaults; ``[tool.monologue]`` in the nearest ``pyproject.toml`` or a
``monologue.toml`` (the first found walking up from the working directory); ``MONOLOGUE_*``
environment variables; CLI flags; arguments to ``session()`` / ``@monologue(...)``. Every
value remembers its source so that a bad one is reported as
``min_buffer_size = 'abc' (from env MONOLOGUE_MIN_BUFFER_SIZE): ...``.

Keys that are not fields of ``MonologueConfig`` are kept as extras: they are plugin settings
(``gate``, ``durability``, ...) that each plugin validates itself, read with
:meth:`MonologueConfig.option`.

A session never fails to start over a bad core setting: :func:`load_config` with
``tolerant=True`` (what sessions use) logs one warning naming each bad setting and its
source, and uses that setting's default. ``MONOLOGUE_STRICT_CONFIG=1`` makes it an error
again; ``monologue config`` always reports it as one.
"""

from __future__ import annotations

import logging
import os
import threading
import tomllib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..errors import ConfigError

log = logging.getLogger("monologue.settings")

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

ENV_PREFIX = "MONOLOGUE_"
# Environment variables that steer loading, not a session's configuration.
NON_CONFIG_ENV = frozenset(
    {"STRICT_PLUGINS", "LOAD_PLUGINS", "DISABLE_PLUGINS", "NO_CONFIG_FILE", "STRICT_CONFIG"}
)
CONFIG_FILE_NAME = "monologue.toml"

Preset = Literal["default", "terse", "verbose"]


class MonologueConfig(BaseModel):
    """Settings of a session. Unknown keys are kept for plugins (see :meth:`option`)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    min_buffer_size: int = Field(2, ge=1, description="Events to buffer before narrating.")
    max_buffer_size: int = Field(
        10, ge=1, description="At this many buffered events the narrator is asked (max_buffer)."
    )
    buffer_cap: int = Field(
        200,
        ge=1,
        description="Cap on buffered events; the oldest beyond it fold into a digest that "
        "the next narrative covers.",
    )
    history_size: int = Field(5, ge=0, description="Narratives kept as history for the narrator.")
    narrator: str = Field("auto", description="Narrator plugin name, 'auto', or 'none'.")
    model: str = Field("haiku", description="Model for model-backed narrators.")
    preset: Preset = Field("default", description="Narration style: default, terse, verbose.")
    system_prompt: str | None = Field(None, description="Replaces the preset's system prompt.")
    throttle_ms: int = Field(0, ge=0, description="Minimum time between two narratives.")
    narrate_timeout_s: float = Field(10.0, gt=0, description="Longest wait for one narration.")
    final_wait_s: float = Field(
        3.0,
        gt=0,
        description="Longest a closing session (a decorated call's end) waits for the final "
        "narrative; a later one is dropped with a narration_suppressed reason.",
    )
    narrator_stuck_limit: int = Field(
        3,
        ge=1,
        description="Calls of one narrator still running at twice narrate_timeout_s before "
        "narration with it pauses (until they return).",
    )
    on_narrator_error: Literal["keep", "drop"] = Field(
        "keep", description="What a failed narration does with its events."
    )
    record_dir: Path | None = Field(
        None, description="Where recordings go (default: <data_dir>/sessions)."
    )
    prompts_dir: Path | None = Field(None, description="Templates here override shipped ones.")
    data_dir: Path | None = Field(
        None, description="Plugins' data folder (default: $XDG_DATA_HOME/monologue)."
    )

    @model_validator(mode="after")
    def _sizes_in_order(self) -> MonologueConfig:
        if self.min_buffer_size > self.max_buffer_size:
            raise ValueError(
                f"min_buffer_size ({self.min_buffer_size}) must not exceed "
                f"max_buffer_size ({self.max_buffer_size})"
            )
        if self.max_buffer_size > self.buffer_cap:
            raise ValueError(
                f"max_buffer_size ({self.max_buffer_size}) must not exceed "
                f"buffer_cap ({self.buffer_cap})"
            )
        return self

    def option(self, key: str, default: Any = None) -> Any:
        """A plugin setting (an extra key), or ``default`` when it was not given."""
        extras = self.model_extra or {}
        return extras.get(key, default)

    def resolved_data_dir(self) -> Path:
        """``data_dir``, else ``$XDG_DATA_HOME/monologue`` (``~/.local/share/monologue``)."""
        if self.data_dir is not None:
            return self.data_dir.expanduser()
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return Path(base) / "monologue"

    def resolved_record_dir(self) -> Path:
        """``record_dir``, else ``<data_dir>/sessions``."""
        if self.record_dir is not None:
            return self.record_dir.expanduser()
        return self.resolved_data_dir() / "sessions"


FIELD_NAMES = frozenset(MonologueConfig.model_fields)


@dataclass
class Layer:
    """One source of configuration values."""

    source: str
    values: dict[str, Any] = field(default_factory=dict)


def _normalise_key(key: str) -> str:
    return key.strip().lower().replace("-", "_")


def env_layer(environ: Mapping[str, str] | None = None) -> Layer:
    """``MONOLOGUE_<KEY>`` variables, except the plugin-loading ones."""
    environ = os.environ if environ is None else environ
    layer = Layer("environment")
    for name, value in environ.items():
        if name.startswith(ENV_PREFIX) and name[len(ENV_PREFIX) :] not in NON_CONFIG_ENV:
            key = _normalise_key(name[len(ENV_PREFIX) :])
            if key:
                layer.values[key] = value
    return layer


_file_cache: dict[Path, tuple[int, dict[str, Any]]] = {}
_file_cache_lock = threading.Lock()


def _read_toml(path: Path) -> dict[str, Any]:
    mtime = path.stat().st_mtime_ns
    with _file_cache_lock:
        cached = _file_cache.get(path)
        if cached and cached[0] == mtime:
            return cached[1]
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    with _file_cache_lock:
        _file_cache[path] = (mtime, data)
    return data


def find_config_file(start: Path | None = None) -> tuple[Path, dict[str, Any]] | None:
    """The nearest ``monologue.toml``, or ``pyproject.toml`` with ``[tool.monologue]``."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / CONFIG_FILE_NAME
        if candidate.is_file():
            data = _read_toml(candidate)
            # A monologue.toml may hold the keys at top level or under [tool.monologue].
            section = data.get("tool", {}).get("monologue", data)
            return candidate, dict(section)
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            section = _read_toml(candidate).get("tool", {}).get("monologue")
            if section is not None:
                return candidate, dict(section)
    return None


def file_layer(start: Path | None = None) -> Layer | None:
    """The config-file source; ``MONOLOGUE_NO_CONFIG_FILE=1`` ignores files (tests, CI)."""
    if os.environ.get("MONOLOGUE_NO_CONFIG_FILE", "").strip() not in ("", "0"):
        return None
    found = find_config_file(start)
    if found is None:
        return None
    path, values = found
    label = f"{path} [tool.monologue]" if path.name == "pyproject.toml" else str(path)
    return Layer(label, {_normalise_key(k): v for k, v in values.items()})


_cli_layer: Layer | None = None


@contextmanager
def cli_overrides(values: Mapping[str, Any]) -> Iterator[None]:
    """Make CLI flags a configuration source for everything run inside the block."""
    global _cli_layer
    previous = _cli_layer
    given = {k: v for k, v in values.items() if v is not None}
    _cli_layer = Layer("command-line flags", given) if given else previous
    try:
        yield
    finally:
        _cli_layer = previous


def load_config(
    overrides: Mapping[str, Any] | None = None,
    *,
    source: str = "session() arguments",
    start: Path | None = None,
    environ: Mapping[str, str] | None = None,
    tolerant: bool = False,
) -> MonologueConfig:
    """Merge every source (see module docstring) into a validated ``MonologueConfig``.

    A bad value raises :class:`ConfigError`; with ``tolerant`` (unless
    ``MONOLOGUE_STRICT_CONFIG`` is set) it is logged and replaced by its default instead,
    and a configuration file that cannot be read is logged and left out.
    """
    strict = not tolerant or _strict(os.environ if environ is None else environ)
    try:
        found = file_layer(start)
    except ConfigError as exc:
        if strict:
            raise
        _warn_once(
            f"{exc}; the session ignores that file ({ENV_PREFIX}STRICT_CONFIG=1 makes "
            "this an error)"
        )
        found = None
    layers = [found, env_layer(environ), _cli_layer]
    if overrides:
        layers.append(Layer(source, {_normalise_key(k): v for k, v in overrides.items()}))
    return merge_layers([layer for layer in layers if layer is not None], tolerant=not strict)


def _strict(environ: Mapping[str, str]) -> bool:
    return environ.get(f"{ENV_PREFIX}STRICT_CONFIG", "").strip().lower() not in _OFF


_OFF = ("", "0", "false", "no", "off")
_warned: set[str] = set()
_warned_lock = threading.Lock()


def merge_layers(layers: list[Layer], *, tolerant: bool = False) -> MonologueConfig:
    """Validate the layers merged (later ones win); see :func:`load_config` for ``tolerant``."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for layer in layers:
        for key, value in layer.values.items():
            values[key] = value
            sources[key] = layer.source
    while True:
        try:
            return MonologueConfig.model_validate(values)
        except ValidationError as exc:
            problem = _explain(exc, values, sources)
            culprits = _culprits(exc, values, sources) if tolerant else []
            if not culprits:
                raise ConfigError(problem) from None
            defaults = ", ".join(
                f"{key} ({MonologueConfig.model_fields[key].default!r})" for key in culprits
            )
            _warn_once(
                f"{problem}; the session uses the default for {defaults} "
                f"(set {ENV_PREFIX}STRICT_CONFIG=1 to make this an error)"
            )
            for key in culprits:
                del values[key]


def _culprits(exc: ValidationError, values: dict[str, Any], sources: dict[str, str]) -> list[str]:
    """The given settings a validation error blames: its field, or the fields a
    cross-field message names."""
    found: set[str] = set()
    for error in exc.errors(include_url=False):
        key = str(error["loc"][0]) if error["loc"] else ""
        if key:
            found.add(key)
        else:
            found.update(k for k in FIELD_NAMES if k in str(error["msg"]) and k in sources)
    return sorted(key for key in found if key in values and key in FIELD_NAMES)


def _warn_once(message: str) -> None:
    with _warned_lock:
        if message in _warned:
            return
        _warned.add(message)
    log.warning("%s", message)


def _explain(exc: ValidationError, values: dict[str, Any], sources: dict[str, str]) -> str:
    problems = []
    for error in exc.errors(include_url=False):
        key = str(error["loc"][0]) if error["loc"] else ""
        message = str(error["msg"]).removeprefix("Value error, ")
        if key:
            problems.append(
                f"{key} = {values.get(key)!r} (from {sources.get(key, 'defaults')}): {message}"
            )
        else:
            named = [k for k in FIELD_NAMES if k in message and k in sources]
            origin = ", ".join(f"{k} from {sources[k]}" for k in sorted(named)) or "defaults"
            problems.append(f"{message} ({origin})")
    return "invalid monologue configuration: " + "; ".join(problems)


@dataclass(frozen=True)
class SettingRow:
    """One line of ``monologue config``: a key, its effective value and where it came from;
    ``plugin`` names the plugin that reads a plugin setting."""

    key: str
    value: Any
    source: str
    plugin: str | None = None


PluginSettings = Callable[[MonologueConfig], dict[str, dict[str, Any]]]


def describe_settings(
    plugin_settings: PluginSettings | None = None, overrides: Mapping[str, Any] | None = None
) -> list[SettingRow]:
    """Every effective setting for ``monologue config``: the core's, then each plugin's (as
    ``plugin_settings(config)`` validates them), then keys no plugin claims. A bad value
    raises :class:`ConfigError` naming it."""
    layers = [x for x in (file_layer(), env_layer(), _cli_layer) if x is not None]
    if overrides:
        layers.append(Layer("arguments", {_normalise_key(k): v for k, v in overrides.items()}))
    given: dict[str, tuple[Any, str]] = {}
    for layer in layers:
        for key, value in layer.values.items():
            given[key] = (value, layer.source)
    config = merge_layers(layers)
    effective = config.model_dump()
    rows = [
        SettingRow(key, effective[key], given.get(key, (None, "default"))[1])
        for key in sorted(FIELD_NAMES)
    ]
    claimed = plugin_settings(config) if plugin_settings is not None else {}
    for plugin, settings in sorted(claimed.items()):
        for key, value in settings.items():
            rows.append(SettingRow(key, value, given.get(key, (None, "default"))[1], plugin))
    shown = {row.key for row in rows}
    rows += [
        SettingRow(key, value, source)
        for key, (value, source) in sorted(given.items())
        if key not in shown
    ]
    return rows
