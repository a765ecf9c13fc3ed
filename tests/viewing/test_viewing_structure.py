"""Viewing (replay, watch, log) is the core's, apart from recording: the recorder imports
none of it, and the public format module stays light. (That no import cycle runs through
``monologue.replay`` is ``tests/test_imports.py``'s rule for every part of the core.)"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import monologue
import monologue.recording

ROOT = Path(__file__).resolve().parents[2]
RECORDER = ROOT / "plugins" / "recorder" / "monologue_recorder"


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


@pytest.mark.skipif(not RECORDER.is_dir(), reason="the recorder's source is not here")
def test_the_recorder_imports_nothing_of_the_viewing_modules() -> None:
    private = set()
    for path in RECORDER.glob("*.py"):
        for module in imported_modules(path, "monologue_recorder"):
            if module.startswith("monologue.") and any(
                part.startswith("_") for part in module.split(".")[1:]
            ):
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
