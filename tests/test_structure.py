"""Structural rules the whole project keeps: no import cycle in the core, and no object
reaching into another's private state (the narration worker included).

Module length is not a rule here: a module past about 400 lines is a hint to look for a
second concern, never a quota, and one cohesive class stays in one file however long."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORE = REPO / "core" / "monologue"


def core_modules() -> dict[str, ast.Module]:
    return {path.stem: ast.parse(path.read_text(encoding="utf-8")) for path in CORE.glob("*.py")}


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def import_time_imports(tree: ast.Module, known: set[str]) -> set[str]:
    """Core modules a module imports when it is imported: module level, outside
    ``if TYPE_CHECKING``; imports inside functions run later and cannot make a cycle."""
    found: set[str] = set()
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If) and not _is_type_checking(node):
            pending += node.body + node.orelse
        elif isinstance(node, ast.Try):
            pending += node.body + node.orelse + node.finalbody
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 1 and module:
                found.add(module.split(".")[0])
            elif node.level == 1:  # from . import x, y
                found.update(alias.name for alias in node.names)
            elif module.startswith("monologue."):
                found.add(module.split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(
                alias.name.split(".")[1]
                for alias in node.names
                if alias.name.startswith("monologue.")
            )
    return found & known


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


def test_the_core_has_no_import_cycle():
    modules = core_modules()
    graph = {name: import_time_imports(tree, set(modules)) for name, tree in modules.items()}
    assert "events" in graph["sessions" if "sessions" in graph else "_sessions"]
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as exc:
        pytest.fail(f"import cycle among core modules: {' -> '.join(exc.args[1])}")
    assert set(order) == set(modules)


def test_the_cycle_check_sees_a_cycle():
    known = {"a", "b"}
    graph = {
        "a": import_time_imports(ast.parse("from .b import x"), known),
        "b": import_time_imports(
            ast.parse("from . import a\nif TYPE_CHECKING:\n    import c"), known
        ),
    }
    with pytest.raises(CycleError):
        list(TopologicalSorter(graph).static_order())


def test_no_core_module_reaches_into_another_objects_private_state():
    reaches = {
        name: found for name, tree in core_modules().items() if (found := private_reaches(tree))
    }
    assert not reaches, f"private attributes read or written from outside: {reaches}"


def test_the_worker_uses_the_buffer_and_only_public_session_members():
    worker = next(CORE.glob("*worker.py"))
    tree = ast.parse(worker.read_text(encoding="utf-8"))
    assert private_reaches(tree) == []
    # The session's read-only ``pending`` view is for plugins; the worker has the buffer.
    touched = {ast.unparse(node) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    assert not {name for name in touched if name.endswith(".pending")}
    assert "self._buffer.take" in touched
    assert private_reaches(ast.parse("session._pending.take()")) == ["line 1: session._pending"]
