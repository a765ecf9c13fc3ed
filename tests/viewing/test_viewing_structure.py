"""Viewing (replay, watch, log) is the core's, apart from recording: the recorder imports
none of it, no import cycle runs through it, and the public format module stays light."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import monologue
import monologue.recording

ROOT = Path(__file__).resolve().parents[2]
CORE = Path(monologue.__file__).parent
RECORDER = ROOT / "plugins" / "recorder" / "monologue_recorder"
VIEWING = {"_viewing", "_replay", "_watch", "_log", "_render", "_tail"}


def imported_modules(path: Path, package: str) -> set[str]:
    """Every module ``path`` imports, anywhere in the file, as absolute dotted names."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([package, base]) if base else package
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def core_graph() -> dict[str, set[str]]:
    """Core module -> the core modules it imports (lazily or not)."""
    names = {path.stem for path in CORE.glob("*.py")}
    graph = {}
    for name in names:
        imported = imported_modules(CORE / f"{name}.py", "monologue")
        graph[name] = {
            module.split(".")[1]
            for module in imported
            if module.startswith("monologue.") and module.split(".")[1] in names
        } - {name}
    return graph


def reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), list(graph[start])
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            todo.extend(graph.get(node, ()))
    return False


def test_the_viewing_modules_exist_and_are_small() -> None:
    for name in [*VIEWING, "recording"]:
        lines = (CORE / f"{name}.py").read_text(encoding="utf-8").count("\n")
        assert lines <= 400, f"monologue/{name}.py has {lines} lines"


def test_no_import_cycle_runs_through_the_viewing_modules() -> None:
    graph = core_graph()
    cycles = [name for name in [*VIEWING, "recording"] if reaches(graph, name, name)]
    assert cycles == []


def test_the_cycle_check_finds_a_cycle() -> None:
    graph = {"_log": {"_viewing"}, "_viewing": {"_log"}, "recording": set()}
    assert reaches(graph, "_log", "_log") and not reaches(graph, "recording", "recording")


@pytest.mark.skipif(not RECORDER.is_dir(), reason="the recorder's source is not here")
def test_the_recorder_imports_nothing_of_the_viewing_modules() -> None:
    private = set()
    for path in RECORDER.glob("*.py"):
        for module in imported_modules(path, "monologue_recorder"):
            if module.startswith("monologue.") and module.split(".")[1].startswith("_"):
                private.add(f"{path.name}: {module}")
            if module.split(".")[-1] in {"replay", "watch", "log", "render", "commands"}:
                private.add(f"{path.name}: {module}")
    assert private == set()


def test_the_recording_module_declares_its_surface() -> None:
    exported = monologue.recording.__all__
    assert sorted(exported) == sorted(set(exported))
    assert all(hasattr(monologue.recording, name) for name in exported)
    assert {"open_session", "read_recording", "event_line", "LineTail"} <= set(exported)


def test_importing_the_recording_module_stays_light() -> None:
    # Recorder plugins import it whenever `monologue` starts, `--help` included.
    code = (
        "import sys, monologue.recording\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'pydantic', 'rich'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
