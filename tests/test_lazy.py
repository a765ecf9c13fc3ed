from __future__ import annotations

import sys
import types

import pytest

from monologue._lazy import lazy_exports


def test_lazy_names_load_on_first_use_and_stay(monkeypatch):
    package = types.ModuleType("fakepkg")
    package.__path__ = []  # type: ignore[attr-defined]
    sub = types.ModuleType("fakepkg.heavy")
    sub.Thing = object()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fakepkg", package)
    monkeypatch.setitem(sys.modules, "fakepkg.heavy", sub)
    namespace = vars(package)
    namespace["on_event"] = lambda: None  # a hook implementation defined in the package
    getattr_, dir_ = lazy_exports("fakepkg", {"Thing": "heavy"}, namespace)

    assert "Thing" not in namespace
    assert getattr_("Thing") is sub.Thing  # type: ignore[attr-defined]
    assert namespace["Thing"] is sub.Thing  # type: ignore[attr-defined]
    assert {"Thing", "on_event"} <= set(dir_())  # pluggy looks for hooks through dir()
    with pytest.raises(AttributeError, match="module 'fakepkg' has no attribute 'Nope'"):
        getattr_("Nope")


def test_the_core_package_exports_lazily():
    import monologue

    assert set(monologue.__all__) <= set(dir(monologue))
    assert monologue.session.__module__ == "monologue.pipeline._session"
