"""The plugin index ``monologue --help`` and ``monologue plugins`` read: used while current,
rebuilt when a plugin's entry module (or anything on ``sys.path``) changes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from monologue.plugins import _index as _plugin_index
from monologue.plugins._index import plugin_index

FAKE = {
    "name": "fake",
    "distribution": None,
    "version": None,
    "hooks": [],
    "status": "loaded",
    "error": None,
}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MONOLOGUE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def test_a_current_index_is_read_and_a_changed_module_rebuilds_it(cache: Path) -> None:
    built = plugin_index()
    [stored] = (cache / "cache").glob("plugins-*.json")
    assert json.loads(stored.read_text())["rows"] == built["rows"]

    # Pretend the index knew one more plugin, whose entry module is ``module``.
    module = cache / "monologue_fake.py"
    module.write_text("")
    edited = {**built, "rows": [*built["rows"], FAKE]}
    edited["files"] = {**built["files"], str(module): os.stat(module).st_mtime_ns}
    stored.write_text(json.dumps(edited))
    assert FAKE in plugin_index()["rows"]  # read, not rebuilt

    os.utime(module, ns=(1, 1))  # the module was edited
    assert FAKE not in plugin_index()["rows"]
    assert FAKE not in json.loads(stored.read_text())["rows"]


def test_a_changed_sys_path_folder_rebuilds_it(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = cache / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setattr(_plugin_index.sys, "path", ["", *_plugin_index.sys.path])
    built = plugin_index()
    [stored] = (cache / "cache").glob("plugins-*.json")
    stored.write_text(json.dumps({**built, "rows": [FAKE]}))
    assert plugin_index()["rows"] == [FAKE]

    (folder / "monologue_new-1.0.dist-info").mkdir()  # a distribution installed there
    assert plugin_index()["rows"] == built["rows"]


def test_an_unwritable_cache_folder_means_no_cache(cache: Path, monkeypatch) -> None:
    blocker = cache / "file"
    blocker.write_text("")
    monkeypatch.setenv("MONOLOGUE_CACHE_DIR", str(blocker / "cache"))
    assert plugin_index()["hooks"]  # built, and nothing raised
