"""Validating one settings model from the merged sources, the one way a bad value is handled.

Strict (the CLI, :func:`~monologue.settings.load_config` by default): a
:class:`~monologue.errors.ConfigError` naming the key, the value, its source and the problem.
Tolerant (a session): the same words logged once, and the setting runs on its default.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from monologue.errors import ConfigError

from ._layers import ENV_PREFIX

__all__ = ["env_name", "keys", "validate", "warn_once"]

log = logging.getLogger("monologue.settings")
M = TypeVar("M", bound=BaseModel)
STRICT_HINT = f"set {ENV_PREFIX}STRICT_CONFIG=1 to make this an error"


@functools.cache
def keys(model: type[BaseModel]) -> dict[str, str]:
    """``{setting key: the model's input name}``. A key is the field's alias, else the
    model's ``env_prefix`` past ``MONOLOGUE_`` (``MONOLOGUE_ANTHROPIC_`` gives
    ``anthropic_``) and the field's name."""
    prefix = str(model.model_config.get("env_prefix") or ENV_PREFIX)
    stem = prefix.removeprefix(ENV_PREFIX).lower()
    return {
        (info.alias or stem + name).lower(): info.alias or name
        for name, info in model.model_fields.items()
    }


def env_name(key: str) -> str:
    """The environment variable that sets ``key``."""
    return ENV_PREFIX + key.upper()


def validate(
    model: type[M], given: Mapping[str, Any], sources: Mapping[str, str], *, tolerant: bool
) -> M:
    """``model`` from the ``given`` values of its keys; see the module docstring for a bad one."""
    names = keys(model)
    key_of = {name: key for key, name in names.items()}
    values = {names[key]: value for key, value in given.items() if key in names}
    while True:
        try:
            return model.model_validate(values)
        except ValidationError as exc:
            problems = _problems(exc, values, key_of, sources)
            culprits = [name for name, _ in problems if name in values]
            if not tolerant or not culprits:
                raise ConfigError("; ".join(text for _, text in problems)) from None
            for name, text in problems:
                if name in values:
                    default = _default(model, name)
                    warn_once(f"{text}; the session uses the default ({default!r}) ({STRICT_HINT})")
                    del values[name]


def _default(model: type[BaseModel], name: str) -> Any:
    for field, info in model.model_fields.items():
        if name in (field, info.alias):
            return info.get_default(call_default_factory=True)
    return None


def _problems(
    exc: ValidationError,
    values: Mapping[str, Any],
    key_of: Mapping[str, str],
    sources: Mapping[str, str],
) -> list[tuple[str, str]]:
    """``(input name, "key = value (from source): problem")`` per error; a cross-field error
    is blamed on each given setting its message names."""
    from monologue.redact import redact  # only when a value is bad

    found = []
    for error in exc.errors(include_url=False):
        message = str(error["msg"]).removeprefix("Value error, ")
        name = str(error["loc"][0]) if error["loc"] else ""
        blamed = [name] if name else [n for n in values if n in message and n in key_of]
        if not blamed:
            found.append(("", f"invalid setting: {message} (from defaults)"))
        for name in blamed:
            key = key_of.get(name, name)
            source = sources.get(key, "default")
            text = f"{key} = {redact(values.get(name))!r} (from {source}): {message}"
            found.append((name, text))
    return found


_warned: set[str] = set()
_warned_lock = threading.Lock()


def warn_once(message: str) -> None:
    """Log ``message`` as a warning the first time it is seen in this process."""
    with _warned_lock:
        if message in _warned:
            return
        _warned.add(message)
    log.warning("%s", message)
