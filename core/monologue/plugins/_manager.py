"""Finding, loading and listing plugins.

``monologue.plugins.pm`` is the process's plugin manager, loaded from the ``monologue``
entry-point group on first use (not at import, so ``import monologue`` stays cheap).
Plugins load one at a time: one that fails to import is skipped with a warning and listed as
failed, unless ``MONOLOGUE_STRICT_PLUGINS=1``. ``MONOLOGUE_LOAD_PLUGINS`` is an allow-list
(comma-separated distribution or entry-point names; set but empty means none) and
``MONOLOGUE_DISABLE_PLUGINS`` a block-list.
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pluggy

from monologue._markers import PROJECT_NAME
from monologue.errors import PluginLoadError

from . import hookspecs
from ._env import Active, allowed_by, failure_message, is_strict
from ._guard import guard

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from ._hooks import Hooks
    from ._listing import PluginInfo

__all__ = [
    "ENTRY_POINT_GROUP",
    "MonologuePluginManager",
    "PluginFailure",
    "PluginWarning",
    "active_plugin_manager",
    "get_plugin_manager",
    "use_plugin_manager",
]

ENTRY_POINT_GROUP = "monologue"
log = logging.getLogger("monologue.plugins")


class PluginWarning(UserWarning):
    """A plugin was skipped; the message names it and the error."""


@dataclass(frozen=True)
class PluginFailure:
    """A plugin that could not be loaded, and why."""

    name: str
    distribution: str
    version: str | None
    error: str


class MonologuePluginManager(pluggy.PluginManager):
    """A pluggy manager with monologue's specs, strict registration, per-plugin fault isolation
    (each implementation is guarded as it registers, see ``_guard.py``) and load
    bookkeeping."""

    def __init__(self) -> None:
        super().__init__(PROJECT_NAME)
        self._spec_sources: list[ModuleType | type] = []
        self.add_hookspecs(hookspecs)
        # Historic: every plugin registered from now on adds the hooks it owns as it registers.
        self.hook.register_hookspecs.call_historic(kwargs={"pm": self})
        self._deferred: list[object] | None = None
        # Bumped on every (un)registration so the facade can cache implementation lists.
        self.generation = 0
        self.failures: dict[str, PluginFailure] = {}
        self._dists: dict[str, tuple[str, str]] = {}
        self._hooks: Hooks | None = None

    @property
    def hooks(self) -> Hooks:
        """The typed facade business code calls hooks through."""
        if self._hooks is None:
            from ._hooks import Hooks

            self._hooks = Hooks(self)
        return self._hooks

    def register(self, plugin: object, name: str | None = None) -> str | None:
        """Register ``plugin``; implementations of unknown hooks are refused here (or, while
        entry points load, once all have loaded: a plugin may implement a hook that another
        plugin, loaded later, owns)."""
        registered = super().register(plugin, name)
        if self._deferred is not None:
            self._deferred.append(plugin)
        else:
            self._refuse_unknown_hooks(plugin, registered)
        wrappers = [
            caller.name
            for caller in self.get_hookcallers(plugin) or []
            for impl in caller.get_hookimpls()
            if impl.plugin is plugin and (impl.hookwrapper or impl.wrapper)
        ]
        if wrappers:
            # A guard turns an exception into ``None``: a wrapper around a failing plugin
            # would see a result where there was an error, and the per-event loop and the
            # routed calls (see ``_hooks.py``) call implementations one at a time, where a
            # wrapper would be called as a plain implementation and misbehave silently.
            self.unregister(plugin)
            raise PluginLoadError(
                f"plugin {registered!r} declares hook wrapper(s) for "
                f"{', '.join(sorted(wrappers))}; monologue calls each implementation on its own "
                "and does not support wrappers"
            )
        for caller in self.get_hookcallers(plugin) or []:
            for impl in caller.get_hookimpls():
                if impl.plugin is plugin:
                    guard(impl, caller.name, self.hooks.report)
        self.generation += 1
        return registered

    def add_hookspecs(self, module_or_class: ModuleType | type) -> None:
        """Add the hooks ``module_or_class`` declares; adding the same ones again does
        nothing (a plugin's own hooks may be added by the plugins depending on it too)."""
        if module_or_class in self._spec_sources:
            return
        self._spec_sources.append(module_or_class)
        super().add_hookspecs(module_or_class)

    def _refuse_unknown_hooks(self, plugin: object, name: str | None) -> None:
        unknown = [
            caller.name
            for caller in self.get_hookcallers(plugin) or []
            if not caller.has_spec()
            and not all(impl.optionalhook for impl in caller.get_hookimpls())
        ]
        if unknown:
            self.unregister(plugin)
            raise PluginLoadError(
                f"plugin {name!r} implements unknown hook(s) {', '.join(sorted(unknown))}; "
                f"known hooks: {', '.join(sorted(self.spec_names()))}"
            )

    def unregister(self, plugin: object | None = None, name: str | None = None) -> Any:
        removed = super().unregister(plugin, name)
        self.generation += 1
        return removed

    def spec_names(self) -> list[str]:
        """The names of every hook with a specification (the core's and plugins')."""
        return [n for n, caller in vars(self.hook).items() if caller.has_spec()]

    def load_entrypoints(self, environ: Mapping[str, str] | None = None) -> None:
        """Load every plugin of the ``monologue`` group the environment allows."""
        from importlib.metadata import entry_points

        allowed = allowed_by(environ)
        strict = is_strict(environ)
        loaded: dict[str, EntryPoint] = {}
        self._deferred = []
        try:
            for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
                if not allowed(ep.name, ep.dist.name if ep.dist else None):
                    continue
                if self.has_plugin(ep.name) or ep.name in self.failures:
                    continue
                if self._load_one(ep, strict):
                    loaded[ep.name] = ep
        finally:
            self._deferred = None
        # Every plugin has added the hooks it owns: now an unknown hook is an error.
        for name, ep in loaded.items():
            plugin = self.get_plugin(name)
            try:
                self._refuse_unknown_hooks(plugin, name)
            except PluginLoadError as exc:
                self._dists.pop(name, None)
                self._fail(ep, str(exc), strict, exc)

    def _load_one(self, ep: EntryPoint, strict: bool) -> bool:
        try:
            plugin = ep.load()
            self.register(plugin, name=ep.name)
        except Exception as exc:
            self._fail(ep, f"{type(exc).__name__}: {exc}", strict, exc)
            return False
        self._dists[ep.name] = (ep.dist.name, ep.dist.version) if ep.dist else (ep.name, "")
        return True

    def _fail(self, ep: EntryPoint, error: str, strict: bool, exc: Exception) -> None:
        dist = (ep.dist.name, ep.dist.version) if ep.dist else (ep.name, "")
        message = failure_message(ep.name, dist[0], error)
        if strict:
            raise PluginLoadError(
                f"{message} (MONOLOGUE_STRICT_PLUGINS is set, so this is fatal)"
            ) from exc
        self.failures[ep.name] = PluginFailure(ep.name, dist[0], dist[1] or None, error)
        warnings.warn(message, PluginWarning, stacklevel=3)
        log.warning(message)

    def plugin_infos(self) -> list[PluginInfo]:
        """Every registered or failed plugin, sorted by name."""
        from ._listing import PluginInfo

        rows = [
            PluginInfo(
                name=f.name,
                distribution=f.distribution,
                version=f.version,
                status="failed",
                error=f.error,
            )
            for f in self.failures.values()
        ]
        for name, plugin in self.list_name_plugin():
            if plugin is None:
                continue
            dist = self._dists.get(name)
            hooks = sorted(caller.name for caller in self.get_hookcallers(plugin) or [])
            rows.append(
                PluginInfo(
                    name=name,
                    distribution=dist[0] if dist else None,
                    version=dist[1] if dist and dist[1] else None,
                    hooks=hooks,
                    status="loaded",
                )
            )
        return sorted(rows, key=lambda row: row.name)


_lock = threading.Lock()


def get_plugin_manager() -> MonologuePluginManager:
    """The active plugin manager, loading installed plugins the first time."""
    if Active.manager is None:
        with _lock:
            if Active.manager is None:
                manager = MonologuePluginManager()
                manager.load_entrypoints()
                Active.manager = manager
    return Active.manager


def active_plugin_manager() -> MonologuePluginManager | None:
    """The plugin manager in use, or ``None`` while nothing has loaded one."""
    return Active.manager


@contextmanager
def use_plugin_manager(manager: MonologuePluginManager) -> Iterator[MonologuePluginManager]:
    """Make ``manager`` the active one inside the block (used by ``pytest_monologue``)."""
    with _lock:
        previous, Active.manager = Active.manager, manager
    try:
        yield manager
    finally:
        with _lock:
            Active.manager = previous
