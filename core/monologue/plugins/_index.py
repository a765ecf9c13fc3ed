"""A cached index of the installed plugins, so ``monologue --help`` and ``monologue plugins``
import no plugin module.

Listing commands and plugins needs, for each entry point of the ``monologue`` group, its
distribution, the hooks it implements and the commands it adds (``register_commands``), with
their one-line help. Finding that out means importing every plugin, and the plugins' command
modules: hundreds of milliseconds. The index is built once by loading them all (the first
run after an install), then read from a small JSON file under the user's cache folder.

It is rebuilt when anything it depends on may have changed: a directory on ``sys.path``
(installing or removing a distribution changes its site-packages' modification time), a
plugin's entry module file (an editable install being edited), or monologue's version.
``MONOLOGUE_CACHE_DIR`` chooses the folder; a folder that cannot be written just means no
cache. Commands still run on the real plugin manager: the index only describes.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import warnings
import zlib
from typing import TYPE_CHECKING, Any, TypedDict

from monologue import __version__

if TYPE_CHECKING:
    from ._manager import MonologuePluginManager

__all__ = [
    "PluginIndex",
    "cache_dir",
    "cache_file",
    "current_index",
    "mtime",
    "plugin_index",
    "store",
]

_VERSION = 1  # of the file's layout


class IndexedCommand(TypedDict):
    plugin: str
    help: str


class PluginIndex(TypedDict):
    """What the cache file holds (``rows`` are ``monologue plugins --json``'s)."""

    key: list[Any]
    rows: list[dict[str, Any]]
    files: dict[str, int]
    commands: dict[str, IndexedCommand]
    command_errors: dict[str, str]
    """What each plugin whose ``register_commands`` raised raised, by plugin."""
    hooks: list[str]


def cache_dir() -> str:
    """``MONOLOGUE_CACHE_DIR``, else ``$XDG_CACHE_HOME/monologue``, else ``~/.cache/monologue``.

    A string, not a :class:`~pathlib.Path`: ``monologue --help`` does without pathlib."""
    chosen = os.environ.get("MONOLOGUE_CACHE_DIR")
    if chosen:
        return chosen
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "monologue")


def cache_file(kind: str) -> str:
    """The cache file of ``kind`` for this interpreter (each virtual environment has its own
    plugins)."""
    return os.path.join(cache_dir(), f"{kind}-{zlib.crc32(sys.executable.encode()):08x}.json")


def mtime(path: str) -> int | None:
    """``path``'s modification time in nanoseconds, ``None`` when it cannot be read."""
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def _key() -> list[Any]:
    # sys.path[0] is the script's folder or the working directory: it changes with where
    # monologue runs, and holds no installed distribution.
    paths = [p for p in sys.path[1:] if p]
    return [_VERSION, __version__, sys.executable, [[p, mtime(p)] for p in paths]]


def _read(key: list[Any]) -> PluginIndex | None:
    try:
        with open(cache_file("plugins"), "rb") as file:
            index: PluginIndex = json.loads(file.read())
    except (OSError, ValueError):
        return None
    if not isinstance(index, dict) or index.get("key") != key:
        return None
    files = index.get("files")
    if not isinstance(files, dict) or any(mtime(f) != m for f, m in files.items()):
        return None
    return index


def store(path: str, value: Any) -> None:
    """Write ``value`` as JSON to the cache file ``path``, atomically; a folder that cannot
    be written just means no cache (the next run builds it again)."""
    from pathlib import Path  # only when writing: reading the cache does without pathlib

    from monologue.files import write_atomically

    with contextlib.suppress(OSError):
        write_atomically(Path(path), json.dumps(value), durable=False)


def _commands(
    manager: MonologuePluginManager,
) -> tuple[dict[str, IndexedCommand], dict[str, str]]:
    """Each plugin's commands and their one-line help, asking one plugin at a time, and
    the error of each plugin that failed to add them."""
    import click

    from ._guard import unguarded

    found: dict[str, IndexedCommand] = {}
    errors: dict[str, str] = {}
    for impl in manager.hook.register_commands.get_hookimpls():
        group = click.Group()
        try:
            unguarded(impl)(**{name: group for name in impl.argnames if name == "cli"})
        except Exception as exc:
            errors[impl.plugin_name] = f"{type(exc).__name__}: {exc}"
            continue
        for name, command in group.commands.items():
            found[name] = {"plugin": impl.plugin_name, "help": command.get_short_help_str(200)}
    return found, errors


def build(manager: MonologuePluginManager, key: list[Any]) -> PluginIndex:
    """The index of ``manager``, loaded with every installed plugin."""
    files: dict[str, int] = {}
    for _, plugin in manager.list_name_plugin():
        source = getattr(plugin, "__file__", None)
        changed = mtime(source) if source else None
        if source and changed is not None:
            files[source] = changed
    commands, command_errors = _commands(manager)
    return {
        "key": key,
        "rows": [row.model_dump(mode="json") for row in manager.plugin_infos()],
        "files": files,
        "commands": commands,
        "command_errors": command_errors,
        "hooks": sorted(manager.spec_names()),
    }


def current_index() -> PluginIndex | None:
    """The cached index while it is current, else ``None`` (nothing is built)."""
    return _read(_key())


def plugin_index() -> PluginIndex:
    """The index of every installed plugin, from the cache when it is current."""
    key = _key()
    index = _read(key)
    if index is not None:
        return index
    from ._manager import MonologuePluginManager

    manager = MonologuePluginManager()
    with warnings.catch_warnings():
        # The real load warns about a failing plugin, naming it, when a command needs it.
        warnings.simplefilter("ignore")
        manager.load_entrypoints(environ={})
    index = build(manager, key)
    store(cache_file("plugins"), index)
    return index
