"""Structural rules the whole project keeps: no object reaching into another's private
state (the narration worker included). The import rules are in ``test_imports.py``.

Module length is not a rule here: a module past about 400 lines is a hint to look for a
second concern, never a quota, and one cohesive class stays in one file however long."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORE = REPO / "core" / "monologue"


def core_modules() -> dict[str, ast.Module]:
    return {
        str(path.relative_to(CORE)): ast.parse(path.read_text(encoding="utf-8"))
        for path in CORE.rglob("*.py")
    }


def private_reaches(tree: ast.Module) -> list[str]:
    """``other._name`` accesses: an attribute with a leading underscore on anything but
    ``self`` or ``cls`` (dunders are Python's, not private state)."""
    return [
        f"line {node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and not (isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"})
    ]


def test_no_core_module_reaches_into_another_objects_private_state():
    reaches = {
        name: found for name, tree in core_modules().items() if (found := private_reaches(tree))
    }
    assert not reaches, f"private attributes read or written from outside: {reaches}"


def test_the_worker_uses_the_buffer_and_only_public_session_members():
    worker = CORE / "pipeline" / "_worker.py"
    tree = ast.parse(worker.read_text(encoding="utf-8"))
    assert private_reaches(tree) == []
    # The session's read-only ``pending`` view is for plugins; the worker has the buffer.
    touched = {ast.unparse(node) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    assert not {name for name in touched if name.endswith(".pending")}
    assert "self._buffer.take" in touched
    assert private_reaches(ast.parse("session._pending.take()")) == ["line 1: session._pending"]
