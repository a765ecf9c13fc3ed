"""Check that the product wheels hold no test code, and that only pytest-monologue is a pytest
plugin.

With no argument, builds the wheel of every distribution in this repository (the core and each
``plugins/*/`` with a ``pyproject.toml``) with hatchling, in this process, into a temporary
folder, and checks each. With wheel paths, checks those wheels only.

A product wheel fails when it holds a test folder (``tests/``, ``test/``, ``testing/``), a
test module (``conftest.py``, ``test_*.py``, ``*_test.py``, ``testing.py``), a fake
(``fake_*``, ``*_fake.py``), a module importing pytest or pytest-monologue, or declares a
``pytest11`` entry point. pytest-monologue's wheel fails when it declares no ``pytest11``
entry point. Every problem is printed as ``WHEEL: FILE: what is wrong``; the exit code is 1
when there is any.

Usage: python scripts/check_wheels.py [WHEEL ...]
"""

from __future__ import annotations

import configparser
import fnmatch
import re
import sys
import tempfile
import time
import zipfile
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[1]

TEST_HELPERS = "pytest_monologue"
"""The one distribution (normalized name) that holds test helpers and is a pytest plugin."""

TEST_FOLDERS = frozenset({"tests", "test", "testing"})
TEST_FILES = ("conftest.py", "test_*.py", "*_test.py", "testing.py", "fake_*", "*_fake.py")
TEST_IMPORT = re.compile(rb"^\s*(?:import|from)\s+(?:pytest|_pytest|pytest_monologue)\b", re.M)


def distribution(wheel: Path) -> str:
    """The normalized distribution name of a wheel file (``monologue_core``)."""
    return re.sub(r"[-_.]+", "_", wheel.name.split("-", 1)[0]).lower()


def problems(wheel: Path) -> list[str]:
    """Every way ``wheel`` breaks the rules, one line each (empty: it is clean)."""
    helpers = distribution(wheel) == TEST_HELPERS
    found: list[str] = []
    pytest11: list[str] = []
    entry_points = "entry_points.txt"
    with zipfile.ZipFile(wheel) as archive:
        for entry in archive.namelist():
            path = PurePosixPath(entry)
            if path.parent.name.endswith(".dist-info"):
                if path.name == "entry_points.txt":
                    entry_points = entry
                    pytest11 = _pytest11(archive.read(entry).decode())
                continue
            if helpers:
                continue
            why = _why_test_code(path)
            if why is None and path.suffix == ".py" and TEST_IMPORT.search(archive.read(entry)):
                why = "imports pytest or pytest_monologue"
            if why:
                found.append(f"{wheel.name}: {entry}: {why}")
    if helpers and not pytest11:
        found.append(f"{wheel.name}: {entry_points}: declares no pytest11 entry point")
    if not helpers and pytest11:
        found.append(
            f"{wheel.name}: {entry_points}: declares a pytest11 entry point"
            f" ({', '.join(pytest11)}); only pytest-monologue may"
        )
    return found


def _why_test_code(path: PurePosixPath) -> str | None:
    folders = TEST_FOLDERS.intersection(path.parts[:-1])
    if folders:
        return f"inside a test folder ({min(folders)}/)"
    for pattern in TEST_FILES:
        if fnmatch.fnmatch(path.name, pattern):
            return f"a test module or fake ({pattern})"
    return None


def _pytest11(text: str) -> list[str]:
    parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(text)
    if not parser.has_section("pytest11"):
        return []
    return [f"{name} = {target}" for name, target in parser.items("pytest11")]


def projects() -> list[Path]:
    """The folder of every distribution in the repository: the core, then each plugin."""
    plugins = sorted(p.parent for p in (ROOT / "plugins").glob("*/pyproject.toml"))
    return [ROOT, *plugins]


def build_all(into: Path) -> list[Path]:
    """Every distribution's wheel, built into ``into`` by hatchling in this process.

    Every project's build backend is hatchling (its only build requirement), so its builder
    called here makes the same wheel as an isolated build, in well under a second for all of
    them instead of one build environment each.
    """
    from hatchling.builders.wheel import WheelBuilder

    wheels = []
    for number, project in enumerate(projects()):
        built = WheelBuilder(str(project)).build(
            directory=str(into / str(number)), versions=["standard"]
        )
        wheels += [Path(wheel) for wheel in built]
    return wheels


def main(argv: list[str]) -> int:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="monologue-wheels-") as tmp:
        wheels = [Path(arg) for arg in argv] or build_all(Path(tmp))
        missing = [str(wheel) for wheel in wheels if not zipfile.is_zipfile(wheel)]
        if missing:
            print(f"check_wheels: not a wheel file: {', '.join(missing)}", file=sys.stderr)
            return 2
        found = [line for wheel in wheels for line in problems(wheel)]
    for line in found:
        print(line)
    verdict = f"{len(found)} problem(s)" if found else "no test code, one pytest plugin"
    print(f"check_wheels: {len(wheels)} wheels, {verdict} ({time.monotonic() - started:.1f}s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
