"""``monologue --help`` without importing click: the help click rendered last time, while
nothing it was rendered from has changed.

Importing click (with inspect, typing, datetime and uuid) is most of what ``monologue --help``
costs. The top-level help lists the core's commands and every plugin's, the latter from the
plugin index (``plugins/_index.py``), so click's rendering changes only when one of these
does, and each is part of the cached text's key:

- the plugin index: the text is used only while the index is current (checked as the index
  checks itself), and only with the very index it was rendered from;
- the files defining the group and the core's commands (an editable install being edited);
- the environment variables that choose plugins, and the terminal's width.

The text is remembered only when click rendered it from the index with nothing to warn
about: a plugin that failed to load, strict mode or a plugin manager already in use always
go through click. One file per interpreter beside the index, with a few terminal widths.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import zlib
from typing import Any

from monologue.plugins._env import Active, is_strict
from monologue.plugins._index import PluginIndex, cache_file, current_index, mtime, store

__all__ = ["cached_help", "remember_help"]

_VERSION = 1  # of the file's layout
_WIDTHS_KEPT = 4
_ENVIRONMENT = ("MONOLOGUE_LOAD_PLUGINS", "MONOLOGUE_DISABLE_PLUGINS")


def _key(index: PluginIndex) -> list[Any]:
    return [
        _VERSION,
        zlib.crc32(json.dumps(index, sort_keys=True).encode()),  # this very index
        [os.environ.get(name) for name in _ENVIRONMENT],
    ]


def _columns() -> str:
    # What click's help formatter sizes itself by (a JSON object's keys are strings).
    return str(shutil.get_terminal_size().columns)


def _read() -> dict[str, Any] | None:
    try:
        with open(cache_file("help"), "rb") as file:
            cached = json.loads(file.read())
    except (OSError, ValueError):
        return None
    return cached if isinstance(cached, dict) else None


def cached_help() -> str | None:
    """The top-level help as click would render it now, if a current rendering is cached
    and standard output's encoding can print it as is (click rewraps a misconfigured
    stream: it prints the others)."""
    if Active.manager is not None or is_strict():
        return None
    index = current_index()
    if index is None:
        return None
    cached = _read()
    if cached is None or cached.get("key") != _key(index):
        return None
    sources = cached.get("sources")
    texts = cached.get("texts")
    if not isinstance(sources, dict) or not isinstance(texts, dict):
        return None
    if any(mtime(source) != changed for source, changed in sources.items()):
        return None
    text = texts.get(_columns())
    return text if isinstance(text, str) and _printable(text) else None


def _printable(text: str) -> bool:
    try:
        text.encode(getattr(sys.stdout, "encoding", None) or "")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def remember_help(text: str, index: PluginIndex, sources: list[str]) -> None:
    """Cache ``text``, the top-level help click rendered from ``index`` and from the modules
    ``sources`` (the group's and its commands'), for the current terminal width."""
    stamps = {source: mtime(source) for source in sources}
    if None in stamps.values():
        return  # a source that cannot be checked: nothing to invalidate the text with
    key = _key(index)
    cached = _read()
    texts: dict[str, str] = {}
    if cached is not None and cached.get("key") == key and cached.get("sources") == stamps:
        texts = dict(cached.get("texts") or {})
    texts.pop(_columns(), None)  # re-inserted last: the latest widths rendered are kept
    texts[_columns()] = text
    kept = dict(list(texts.items())[-_WIDTHS_KEPT:])
    store(cache_file("help"), {"key": key, "sources": stamps, "texts": kept})
