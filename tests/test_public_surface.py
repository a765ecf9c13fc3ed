"""The core's public surface, and that first-party code keeps to it.

The surface is ``monologue`` itself and every public submodule (no part of its dotted name
starts with an underscore: :func:`public_modules`), each with the names in its ``__all__``;
every other core module is private and may change without notice. ``public_surface.txt``
beside this file lists the whole surface, one ``module: name`` per line, so that a change
to it is deliberate: regenerate it with ``python tests/test_public_surface.py`` and review
the diff. The sources are read from the working tree with ``ast`` at test time.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORE = REPO / "core" / "monologue"
SURFACE_FILE = Path(__file__).with_name("public_surface.txt")
MAX_TOP_LEVEL = 40
PINNED = {
    "Event",
    "Session",
    "session",
    "current",
    "emit",
    "monologue",
    "hookimpl",
    "hookspec",
    "Narration",
    "MonologueConfig",
    "load_config",
    "SkillSpec",
    "SkillCall",
    "SkillResult",
}


def public_modules() -> tuple[str, ...]:
    """Every public core submodule, dotted below ``monologue`` (``plugins.hookspecs``)."""
    found = []
    for path in CORE.rglob("*.py"):
        parts = list(path.relative_to(CORE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if parts and not any(part.startswith("_") for part in parts):
            found.append(".".join(parts))
    return tuple(sorted(found))


PUBLIC_MODULES = public_modules()

pytestmark = pytest.mark.skipif(
    not (CORE / "__init__.py").is_file(), reason="needs the repository's working tree"
)


def module_source(module: str | None) -> Path | None:
    """The source of ``monologue`` (``None``) or of ``monologue.<module>``, if it exists."""
    if module is None:
        return CORE / "__init__.py"
    path = module.replace(".", "/")
    for candidate in (CORE / f"{path}.py", CORE / path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def declared_names(source: Path) -> set[str] | None:
    """The literal ``__all__`` of a module, or ``None`` when it declares none."""
    for node in ast.parse(source.read_text(encoding="utf-8"), str(source)).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets):
            return set(ast.literal_eval(value))
    return None


def public_surface() -> dict[str, set[str]]:
    """Each public module's dotted name and the names it exports."""
    surface = {}
    for module in (None, *PUBLIC_MODULES):
        source = module_source(module)
        names = None if source is None else declared_names(source)
        surface["monologue" if module is None else f"monologue.{module}"] = names or set()
    # `from monologue import events` names a public submodule, which is fine.
    surface["monologue"] |= {module.split(".")[0] for module in PUBLIC_MODULES}
    return surface


def shown(path: Path) -> Path:
    """A path as the report shows it: relative to the repository when inside it."""
    return path.relative_to(REPO) if path.is_relative_to(REPO) else path


def undeclared_imports(path: Path, surface: dict[str, set[str]]) -> list[str]:
    """``file:line: what`` for every import of the core that is not on the surface."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except SyntaxError as exc:
        return [f"{shown(path)}:{exc.lineno}: does not parse: {exc.msg}"]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
            names: list[tuple[str, str | None]] = [(module, None) for module in modules]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [(node.module, alias.name) for alias in node.names]
        else:
            continue
        for module, name in names:
            if module != "monologue" and not module.startswith("monologue."):
                continue
            where = f"{shown(path)}:{node.lineno}"
            if module not in surface:
                found.append(f"{where}: imports private module {module}")
            elif name is not None and name not in surface[module]:
                found.append(f"{where}: {module}.{name} is not in {module}.__all__")
    return found


def first_party_sources() -> list[Path]:
    """Every plugin package and plugin test module in the working tree, and the examples
    (users copy them, so they show only what a user may import)."""
    plugins = REPO / "plugins"
    packages = plugins.glob("*/monologue_*/**/*.py")
    tests = plugins.glob("*/tests/**/*.py")
    examples = (REPO / "examples").glob("**/*.py")
    return sorted({*packages, *tests, *examples})


def test_every_public_module_declares_its_names() -> None:
    missing = [
        f"monologue.{module}"
        for module in PUBLIC_MODULES
        if (source := module_source(module)) is None or declared_names(source) is None
    ]
    assert not missing, f"public modules without a source or an __all__: {missing}"
    assert declared_names(CORE / "__init__.py"), "monologue/__init__.py declares no __all__"


def test_every_exported_name_exists() -> None:
    import importlib

    absent = []
    for module in (None, *PUBLIC_MODULES):
        dotted = "monologue" if module is None else f"monologue.{module}"
        source = module_source(module)
        names = set() if source is None else declared_names(source) or set()
        loaded = importlib.import_module(dotted)
        absent += [f"{dotted}.{name}" for name in sorted(names) if not hasattr(loaded, name)]
    assert not absent, f"names in an __all__ that the module does not have: {absent}"


def test_plugins_and_examples_import_only_the_public_surface() -> None:
    surface = public_surface()
    sources = first_party_sources()
    assert sources, "no plugin sources found under plugins/"
    found = [problem for path in sources for problem in undeclared_imports(path, surface)]
    assert not found, (
        "plugins or examples import core names outside the public surface (export them from "
        "`monologue` or a public submodule's __all__, or stop using them):\n" + "\n".join(found)
    )


def test_the_check_catches_private_modules_and_undeclared_names(tmp_path: Path) -> None:
    plugin = tmp_path / "plugin.py"
    plugin.write_text(
        "from monologue import Session, hookimpl\n"
        "from monologue.events import Event\n"
        "from monologue.sessions import Session as S\n"
        "import monologue.worker\n"
        "from monologue.events import _private\n"
        "from monologue import not_exported\n"
        "from .local import anything\n"
        "import monologue_other.sessions\n",
        encoding="utf-8",
    )
    found = undeclared_imports(plugin, public_surface())
    assert [line.split(": ", 1)[1] for line in found] == [
        "imports private module monologue.sessions",
        "imports private module monologue.worker",
        "monologue.events._private is not in monologue.events.__all__",
        "monologue.not_exported is not in monologue.__all__",
    ]
    assert found[0].startswith(f"{plugin}:3")


def test_a_plugin_that_does_not_parse_is_reported(tmp_path: Path) -> None:
    plugin = tmp_path / "broken.py"
    plugin.write_text("def f(:\n", encoding="utf-8")
    (problem,) = undeclared_imports(plugin, public_surface())
    assert problem.startswith(f"{plugin}:1: does not parse")


def surface_lines() -> list[str]:
    """The whole public surface, one ``module: name`` per line, sorted."""
    lines = []
    for module in (None, *PUBLIC_MODULES):
        source = module_source(module)
        dotted = "monologue" if module is None else f"monologue.{module}"
        names = (declared_names(source) if source is not None else None) or set()
        lines += [f"{dotted}: {name}" for name in sorted(names)] or [f"{dotted}:"]
    return lines


def test_the_public_surface_is_the_checked_in_list() -> None:
    expected = SURFACE_FILE.read_text(encoding="utf-8").splitlines()
    actual = surface_lines()
    added = sorted(set(actual) - set(expected))
    removed = sorted(set(expected) - set(actual))
    assert not added and not removed, (
        f"the public surface changed (if on purpose, run `python {Path(__file__).name}` and "
        f"commit {SURFACE_FILE.name}):\n"
        + "\n".join([*(f"+ {line}" for line in added), *(f"- {line}" for line in removed)])
    )


def test_the_top_level_names_are_few_and_the_pinned_ones_are_there() -> None:
    names = declared_names(CORE / "__init__.py") or set()
    assert len(names) <= MAX_TOP_LEVEL, f"monologue.__all__ has {len(names)} names"
    assert names >= PINNED, f"pinned names missing: {sorted(PINNED - names)}"


if __name__ == "__main__":
    SURFACE_FILE.write_text("\n".join(surface_lines()) + "\n", encoding="utf-8")
    print(f"wrote {SURFACE_FILE}: {len(surface_lines())} lines")
