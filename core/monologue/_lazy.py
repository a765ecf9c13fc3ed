"""Lazy public names for packages whose entry module must import fast (PEP 562).

Loading the plugins imports every plugin's entry module (each command that runs a session,
and the first ``monologue`` run after an install, which indexes them), so heavy names
(pydantic models, SDK wrappers) are loaded from their submodules only when first used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, names: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: ``names`` maps each lazy public name
    to the submodule defining it; ``namespace`` is the package's ``globals()``.

    Use as ``__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())``.
    """

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        namespace[name] = value  # once loaded, a plain global: no second lookup
        return value

    def __dir__() -> list[str]:
        # pluggy finds a module's hook implementations through dir(): keep its own names.
        return sorted({*namespace, *names})

    return __getattr__, __dir__
