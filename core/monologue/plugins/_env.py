"""What the environment says about loading plugins (``MONOLOGUE_LOAD_PLUGINS``,
``MONOLOGUE_DISABLE_PLUGINS``, ``MONOLOGUE_STRICT_PLUGINS``), and the plugin manager in use.

Apart from :mod:`monologue.plugins` so that ``monologue --help``, which reads the plugin
index, needs neither pluggy nor a plugin manager.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._manager import MonologuePluginManager

__all__ = ["allowed_by", "failure_message", "is_strict"]


def _names(value: str) -> set[str]:
    return {_canonical(part) for part in value.split(",") if part.strip()}


def _canonical(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def is_strict(environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``MONOLOGUE_STRICT_PLUGINS`` makes a plugin that fails to load fatal."""
    value = (os.environ if environ is None else environ).get("MONOLOGUE_STRICT_PLUGINS")
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def allowed_by(environ: Mapping[str, str] | None = None) -> Callable[[str, str | None], bool]:
    """Whether the environment's allow- and block-lists let plugin ``(name, distribution)``
    load."""
    environ = os.environ if environ is None else environ
    allow = environ.get("MONOLOGUE_LOAD_PLUGINS")
    allowed = _names(allow) if allow is not None else None
    blocked = _names(environ.get("MONOLOGUE_DISABLE_PLUGINS", ""))

    def check(name: str, dist: str | None) -> bool:
        keys = {_canonical(dist or name), _canonical(name)}
        return (allowed is None or bool(keys & allowed)) and not keys & blocked

    return check


def failure_message(name: str, dist: str | None, error: str) -> str:
    """The one line that says a plugin was skipped."""
    return f"monologue plugin {name!r} ({dist or name}) failed to load: {error}"


class Active:
    """The plugin manager in use (``None`` until something loads or installs one)."""

    manager: MonologuePluginManager | None = None
