"""Plugins: the hook specifications, the plugin manager, and the facade the core calls
hooks through.

``monologue.plugins.pm`` is the process's plugin manager, loaded from the ``monologue``
entry-point group on first access. The names are loaded lazily (PEP 562): the plugin
index and the environment rules (``_index.py``, ``_env.py``) serve ``monologue --help``
without importing pluggy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from monologue._lazy import lazy_exports

__all__ = [
    "ENTRY_POINT_GROUP",
    "MonologuePluginManager",
    "PluginFailure",
    "PluginWarning",
    "active_plugin_manager",
    "get_plugin_manager",
    "use_plugin_manager",
]

_LAZY = dict.fromkeys(__all__, "_manager")

if TYPE_CHECKING:
    from ._manager import (
        ENTRY_POINT_GROUP,
        MonologuePluginManager,
        PluginFailure,
        PluginWarning,
        active_plugin_manager,
        get_plugin_manager,
        use_plugin_manager,
    )

    pm: MonologuePluginManager

_lazy_getattr, __dir__ = lazy_exports(__name__, _LAZY, globals())


def __getattr__(name: str) -> Any:
    if name == "pm":  # not cached: the active manager can change (use_plugin_manager)
        from ._manager import get_plugin_manager

        return get_plugin_manager()
    return _lazy_getattr(name)
