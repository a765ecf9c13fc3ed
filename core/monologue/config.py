"""``MonologueConfig`` and where its values come from.

Sources, lowest first: defaults; ``[tool.monologue]`` in the nearest ``pyproject.toml`` or a
``monologue.toml`` (the first found walking up from the working directory); ``MONOLOGUE_*``
environment variables; CLI flags; arguments to ``session()`` / ``@monologue(...)``. Every
value remembers its source so that a bad one is reported as
``min_buffer_size = 'abc' (from env MONOLOGUE_MIN_BUFFER_SIZE): ...``.

Keys that are not fields of ``MonologueConfig`` are kept as extras: they are plugin settings
(``gate``, ``durability``, ...) that each plugin validates itself, read with
:meth:`MonologueConfig.option`.
"""

from __future__ import annotations

import os
import threading
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .errors import ConfigError

ENV_PREFIX = "MONOLOGUE_"
# Environment variables that steer plugin loading, not a session's configuration.
NON_CONFIG_ENV = frozenset({"STRICT_PLUGINS", "LOAD_PLUGINS", "DISABLE_PLUGINS", "NO_CONFIG_FILE"})
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
        description="Hard cap on buffered events; the oldest beyond it are dropped and counted.",
    )
    history_size: int = Field(5, ge=0, description="Narratives kept as history for the narrator.")
    narrator: str = Field("auto", description="Narrator plugin name, 'auto', or 'none'.")
    model: str = Field("haiku", description="Model for model-backed narrators.")
    preset: Preset = Field("default", description="Narration style: default, terse, verbose.")
    system_prompt: str | None = Field(None, description="Replaces the preset's system prompt.")
    throttle_ms: int = Field(0, ge=0, description="Minimum time between two narratives.")
    narrate_timeout_s: float = Field(
        10.0, gt=0, description="Longest wait for one narration; bounds the final flush too."
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
) -> MonologueConfig:
    """Merge every source (see module docstring) into a validated ``MonologueConfig``."""
    layers = [file_layer(start), env_layer(environ), _cli_layer]
    if overrides:
        layers.append(Layer(source, {_normalise_key(k): v for k, v in overrides.items()}))
    return merge_layers([layer for layer in layers if layer is not None])


def merge_layers(layers: list[Layer]) -> MonologueConfig:
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for layer in layers:
        for key, value in layer.values.items():
            values[key] = value
            sources[key] = layer.source
    try:
        return MonologueConfig.model_validate(values)
    except ValidationError as exc:
        raise ConfigError(_explain(exc, values, sources)) from None


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


def describe_sources(overrides: Mapping[str, Any] | None = None) -> list[tuple[str, Any, str]]:
    """``(key, value, source)`` for every effective setting, for ``monologue config``."""
    layers = [Layer("default", MonologueConfig().model_dump())]
    layers += [x for x in (file_layer(), env_layer(), _cli_layer) if x is not None]
    if overrides:
        layers.append(Layer("arguments", dict(overrides)))
    merged: dict[str, tuple[Any, str]] = {}
    for layer in layers:
        for key, value in layer.values.items():
            merged[key] = (value, layer.source)
    config = merge_layers(layers[1:])
    effective = config.model_dump()
    return [(key, effective.get(key, value), src) for key, (value, src) in sorted(merged.items())]
