"""What ``monologue --help`` and ``monologue plugins`` print, without importing click: the
text they printed last time, while nothing it was made from has changed.

Importing click (with inspect, typing, datetime and uuid) is most of what these commands
cost. Both print what the plugin index (``plugins/_index.py``) says, through monologue's
own code, so their output changes only when one of these does, and each is part of the
cached text's key:

- the plugin index: a text is used only while the index is current (checked as the index
  checks itself), and only with the very index it was made from;
- the files of every monologue module loaded when it was made (an editable install being
  edited);
- the environment variables that choose plugins, and the terminal's width (the help is
  laid out to it).

A text is remembered only when it was made from the index with nothing to warn about: a
plugin that failed to load, strict mode or a plugin manager already in use always go
through click. One file per interpreter beside the index, holding a few texts.
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

__all__ = ["cached_reply", "remember_reply"]

_VERSION = 2  # of the file's layout
_TEXTS_KEPT = 8
_ENVIRONMENT = ("MONOLOGUE_LOAD_PLUGINS", "MONOLOGUE_DISABLE_PLUGINS")


def _key(index: PluginIndex) -> list[Any]:
    return [
        _VERSION,
        zlib.crc32(json.dumps(index, sort_keys=True).encode()),  # this very index
        [os.environ.get(name) for name in _ENVIRONMENT],
    ]


def _text_key(reply: str) -> str:
    # The width click's help formatter sizes itself by.
    return f"{reply} {shutil.get_terminal_size().columns}"


def _read() -> dict[str, Any] | None:
    try:
        with open(cache_file("replies"), "rb") as file:
            cached = json.loads(file.read())
    except (OSError, ValueError):
        return None
    return cached if isinstance(cached, dict) else None


def cached_reply(reply: str) -> str | None:
    """What ``reply`` (``help`` or ``plugins``) would print now, if a current text is cached
    and standard output's encoding prints it as is (click rewraps a misconfigured stream:
    it prints the others)."""
    if Active.manager is not None or is_strict():
        return None
    index = current_index()
    if index is None:
        return None
    cached = _read()
    if cached is None or cached.get("key") != _key(index):
        return None
    texts = cached.get("texts")
    if not isinstance(texts, dict) or not _unchanged(cached.get("sources")):
        return None
    text = texts.get(_text_key(reply))
    return text if isinstance(text, str) and _printable(text) else None


def _printable(text: str) -> bool:
    try:
        text.encode(getattr(sys.stdout, "encoding", None) or "")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _unchanged(sources: Any) -> bool:
    return isinstance(sources, dict) and all(
        mtime(source) == changed for source, changed in sources.items()
    )


def _sources() -> dict[str, int | None]:
    """Every loaded monologue module's file, with its modification time."""
    files = {
        getattr(module, "__file__", None) or ""
        for name, module in list(sys.modules.items())
        if name == "monologue" or name.startswith("monologue.")
    }
    return {source: mtime(source) for source in sorted(files)}


def remember_reply(reply: str, text: str, index: PluginIndex) -> None:
    """Cache ``text``, what ``reply`` printed, made from ``index`` with nothing to warn about."""
    sources = _sources()
    if None in sources.values():
        return  # a module whose file cannot be checked: nothing to invalidate the text with
    key = _key(index)
    cached = _read()
    texts: dict[str, str] = {}
    if cached is not None and cached.get("key") == key and _unchanged(cached.get("sources")):
        # Still current: kept, along with the modules they were made from.
        texts = dict(cached.get("texts") or {})
        sources = {**cached["sources"], **sources}
    entry = _text_key(reply)
    texts.pop(entry, None)  # re-inserted last: the latest texts made are kept
    texts[entry] = text
    kept = dict(list(texts.items())[-_TEXTS_KEPT:])
    store(cache_file("replies"), {"key": key, "sources": sources, "texts": kept})
