"""The core's imports point one way.

Two rules, checked on the source with ``ast``:

- **Between parts** (a subpackage such as ``monologue.pipeline``, or a top-level module such
  as ``monologue.errors``) every import counts, at module level or inside a function: an
  import deferred into a function is still a dependency, it only runs later. The parts
  must form no cycle, and they must respect :data:`LAYERS`: a part imports only parts of
  its own layer or the layers below. Imports under ``if TYPE_CHECKING`` are annotations,
  not dependencies, and do not count.
- **Between modules** the imports that run when a module is imported (module level,
  outside ``if TYPE_CHECKING``) form no cycle, inside a part too.

``monologue/__init__.py`` stands above everything: it names its exports as strings and
loads them on first use (PEP 562), so no part depends on it through an import.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[1] / "core" / "monologue"

LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"_lazy", "_markers", "errors", "files", "prompts", "redact", "lines"}),
    frozenset({"events", "settings"}),
    frozenset({"digest", "checking"}),
    frozenset({"origins"}),
    frozenset({"plugins"}),
    frozenset({"pipeline"}),
    frozenset({"recording"}),
    frozenset({"replay"}),
    frozenset({"cli"}),
    frozenset({"__main__"}),
)
"""The core's parts, lowest first: each imports only from its own layer and those below.
docs/architecture.md draws the same order."""

pytestmark = pytest.mark.skipif(
    not (CORE / "__init__.py").is_file(), reason="needs the repository's working tree"
)


@dataclass(frozen=True)
class Import:
    source: str
    target: str
    at_import_time: bool
    line: int


def modules(root: Path, package: str = "monologue") -> dict[str, Path]:
    """Every module under ``root`` by dotted name (a package by its ``__init__``)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _targets(node: ast.Import | ast.ImportFrom, name: str, is_package: bool, known: set[str]):
    """The known modules an import statement in module ``name`` loads."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in known]
    if node.level:
        package = name.split(".") if is_package else name.split(".")[:-1]
        package = package[: len(package) - node.level + 1]
        base = ".".join([*package, *([node.module] if node.module else [])])
    else:
        base = node.module or ""
    found = []
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        if submodule in known:
            found.append(submodule)  # from package import submodule
        elif base in known:
            found.append(base)
    return found


def imports(root: Path, package: str = "monologue") -> list[Import]:
    """Every import of one module of the tree by another, except ``TYPE_CHECKING`` ones."""
    tree_modules = modules(root, package)
    known = set(tree_modules)
    found: list[Import] = []
    for name, path in tree_modules.items():
        is_package = path.name == "__init__.py"

        def visit(
            nodes: list[ast.stmt],
            at_import_time: bool,
            name: str = name,
            is_package: bool = is_package,
        ) -> None:
            for node in nodes:
                if isinstance(node, ast.If) and _is_type_checking(node):
                    visit(node.orelse, at_import_time)
                    continue
                if isinstance(node, ast.Import | ast.ImportFrom):
                    found.extend(
                        Import(name, target, at_import_time, node.lineno)
                        for target in _targets(node, name, is_package, known)
                        if target != name
                    )
                    continue
                deferred = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.stmt):
                        visit([child], at_import_time and not deferred)
                    else:
                        visit(
                            [n for n in ast.walk(child) if isinstance(n, ast.stmt)],
                            at_import_time and not deferred,
                        )

        visit(ast.parse(path.read_text(encoding="utf-8"), str(path)).body, True)
    return found


def part(module: str) -> str | None:
    """The part a module belongs to: its subpackage, or itself at the top level."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def part_graph(root: Path, found: list[Import], package: str = "monologue") -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {
        name: set() for module in modules(root, package) if (name := part(module)) is not None
    }
    for imp in found:
        source, target = part(imp.source), part(imp.target)
        if source is not None and target is not None and target != source:
            graph[source].add(target)
    return graph


def module_graph(
    root: Path, found: list[Import], package: str = "monologue"
) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in modules(root, package)}
    for imp in found:
        if imp.at_import_time:
            graph[imp.source].add(imp.target)
    return graph


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as exc:
        return list(exc.args[1])
    return None


def layer_violations(found: list[Import]) -> list[str]:
    rank = {name: level for level, names in enumerate(LAYERS) for name in names}
    return [
        f"{imp.source}:{imp.line} imports {imp.target} (a higher layer)"
        for imp in found
        if (source := part(imp.source)) is not None
        and (target := part(imp.target)) is not None
        and rank.get(target, -1) > rank.get(source, -1)
    ]


def test_the_core_parts_form_no_cycle() -> None:
    graph = part_graph(CORE, imports(CORE))
    assert {"events", "plugins", "pipeline", "replay", "cli"} <= set(graph)
    found = cycle(graph)
    assert found is None, f"import cycle between core parts: {' -> '.join(found)}"


def test_every_part_has_a_layer_and_imports_point_down() -> None:
    found = imports(CORE)
    layered = set().union(*LAYERS)
    parts = set(part_graph(CORE, found))
    assert not parts - layered, f"core parts missing from LAYERS: {sorted(parts - layered)}"
    assert not layered - parts, f"LAYERS names parts that do not exist: {layered - parts}"
    violations = layer_violations(found)
    assert not violations, "imports pointing up:\n" + "\n".join(violations)


def test_the_core_modules_form_no_cycle_at_import_time() -> None:
    graph = module_graph(CORE, imports(CORE))
    assert "monologue.pipeline._session" in graph
    found = cycle(graph)
    assert found is None, f"import cycle between core modules: {' -> '.join(found)}"


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_a_cycle_between_parts_through_a_deferred_import_is_found(tmp_path: Path) -> None:
    root = write(
        tmp_path / "pkg",
        {
            "__init__.py": "",
            "low/__init__.py": "",
            "low/model.py": "def f():\n    from ..high.session import S\n    return S\n",
            "high/__init__.py": "",
            "high/session.py": "from ..low.model import f\nS = f\n",
        },
    )
    found = imports(root, "pkg")
    assert cycle(module_graph(root, found, "pkg")) is None  # nothing loops at import time
    assert sorted(cycle(part_graph(root, found, "pkg")) or []) == ["high", "high", "low"]


def test_a_module_cycle_inside_a_part_is_found_and_annotations_do_not_count(
    tmp_path: Path,
) -> None:
    root = write(
        tmp_path / "pkg",
        {
            "__init__.py": "",
            "part/__init__.py": "",
            "part/a.py": "from . import b\n",
            "part/b.py": "from .a import x\n",
            "other.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .part.a import x\n"
            ),
        },
    )
    found = imports(root, "pkg")
    assert sorted(cycle(module_graph(root, found, "pkg")) or []) == [
        "pkg.part.a",
        "pkg.part.a",
        "pkg.part.b",
    ]
    assert part_graph(root, found, "pkg")["other"] == set()


def test_an_import_pointing_up_the_layers_is_reported(tmp_path: Path) -> None:
    root = write(
        tmp_path / "monologue",
        {
            "__init__.py": "",
            "events/__init__.py": "def f():\n    from ..cli import main\n",
            "cli/__init__.py": "main = 1\n",
        },
    )
    (violation,) = layer_violations(imports(root))
    assert violation.startswith("monologue.events:2 imports monologue.cli")
