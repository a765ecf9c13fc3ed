"""Where setting values come from: one :class:`Layer` per source, lowest first.

Defaults (the models' own); ``[tool.monologue]`` in the nearest ``pyproject.toml`` or a
``monologue.toml`` (the first found walking up from the working directory); ``MONOLOGUE_*``
environment variables; CLI flags; arguments to ``session()`` / ``@monologue(...)``. Every
value keeps the label of its source, so that a problem names the file or variable.
"""

from __future__ import annotations

import os
import threading
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monologue.errors import ConfigError

__all__ = [
    "CONFIG_FILE_NAME",
    "ENV_PREFIX",
    "NON_SETTING_ENV",
    "Layer",
    "cli_overrides",
    "env_layer",
    "file_layer",
    "find_config_file",
    "gather",
]

ENV_PREFIX = "MONOLOGUE_"
NON_SETTING_ENV = frozenset(
    {
        # Steer loading, not a session.
        "STRICT_PLUGINS",
        "LOAD_PLUGINS",
        "DISABLE_PLUGINS",
        "NO_CONFIG_FILE",
        "STRICT_CONFIG",
        "CACHE_DIR",
        # Set by the skills plugin in a tool's environment (monologue_skills.reaping).
        "TOOL_RUN",
        # Read by test and development tools, never by a session.
        "PG_BIN",
        "TRACES",
        "UPDATE_GOLDEN",
    }
)
"""``MONOLOGUE_*`` variables that are not settings; they are never reported as unknown."""
CONFIG_FILE_NAME = "monologue.toml"


@dataclass
class Layer:
    """One source of setting values; ``names`` holds a value's own label when it differs
    from the layer's (an environment variable's name)."""

    source: str
    values: dict[str, Any] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)

    def label(self, key: str) -> str:
        return self.names.get(key, self.source)

    @property
    def is_env(self) -> bool:
        return self.source == "environment"


def normalise_key(key: str) -> str:
    return key.strip().lower().replace("-", "_")


def env_layer(environ: Mapping[str, str] | None = None) -> Layer:
    """``MONOLOGUE_<KEY>`` variables, except those in :data:`NON_SETTING_ENV`."""
    environ = os.environ if environ is None else environ
    layer = Layer("environment")
    for name, value in environ.items():
        rest = name[len(ENV_PREFIX) :]
        if name.startswith(ENV_PREFIX) and rest and rest.upper() not in NON_SETTING_ENV:
            key = normalise_key(rest)
            layer.values[key] = value
            layer.names[key] = name
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
    return Layer(label, {normalise_key(k): v for k, v in values.items()})


_cli_layer: Layer | None = None


@contextmanager
def cli_overrides(values: Mapping[str, Any]) -> Iterator[None]:
    """Make CLI flags a settings source for everything run inside the block."""
    global _cli_layer
    previous = _cli_layer
    given = {normalise_key(k): v for k, v in values.items() if v is not None}
    _cli_layer = Layer("command-line flags", given) if given else previous
    try:
        yield
    finally:
        _cli_layer = previous


def gather(
    overrides: Mapping[str, Any] | None,
    source: str,
    *,
    start: Path | None = None,
    environ: Mapping[str, str] | None = None,
    files: bool = True,
) -> list[Layer]:
    """Every source in effect, lowest first; an unreadable file raises :class:`ConfigError`."""
    layers = [file_layer(start) if files else None, env_layer(environ), _cli_layer]
    if overrides:
        layers.append(Layer(source, {normalise_key(k): v for k, v in overrides.items()}))
    return [layer for layer in layers if layer is not None]
