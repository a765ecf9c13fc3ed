"""scripts/check_wheels.py, fed wheels made here: it fails naming the wheel and the file."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "check_wheels.py"

PYTEST11 = "[monologue]\nbad = bad\n\n[pytest11]\nbad = bad.testing.plugin\n"


def wheel(folder: Path, dist: str, files: dict[str, str], entry_points: str = "") -> Path:
    """A wheel of ``dist`` holding ``files`` and, when given, an ``entry_points.txt``."""
    path = folder / f"{dist}-1.0-py3-none-any.whl"
    info = f"{dist}-1.0.dist-info"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
        archive.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {dist}\n")
        if entry_points:
            archive.writestr(f"{info}/entry_points.txt", entry_points)
    return path


def check(*wheels: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, wheels)], capture_output=True, text=True
    )


def test_a_wheel_with_tests_and_a_pytest11_entry_point_fails_naming_both(tmp_path):
    bad = wheel(
        tmp_path,
        "monologue_bad",
        {
            "bad/__init__.py": "",
            "bad/tests/test_bad.py": "def test(): pass\n",
            "bad/conftest.py": "",
            "bad/fake_cli.py": "",
            "bad/report.py": "import pytest\n",
        },
        PYTEST11,
    )
    done = check(bad)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    name = "monologue_bad-1.0-py3-none-any.whl"
    assert f"{name}: bad/tests/test_bad.py: inside a test folder (tests/)" in lines
    assert f"{name}: bad/conftest.py: a test module or fake (conftest.py)" in lines
    assert f"{name}: bad/fake_cli.py: a test module or fake (fake_*)" in lines
    assert f"{name}: bad/report.py: imports pytest or pytest_monologue" in lines
    assert (
        f"{name}: monologue_bad-1.0.dist-info/entry_points.txt: declares a pytest11 entry point"
        " (bad = bad.testing.plugin); only pytest-monologue may"
    ) in lines
    assert lines[-1].startswith("check_wheels: 1 wheels, 5 problem(s)")


def test_a_clean_wheel_and_pytest_monologue_pass(tmp_path):
    clean = wheel(
        tmp_path,
        "monologue_clean",
        {"clean/__init__.py": "", "clean/contest.py": "", "clean/testimony.py": ""},
        "[monologue]\nclean = clean\n",
    )
    helpers = wheel(
        tmp_path,
        "pytest_monologue",
        {
            "pytest_monologue/__init__.py": "import pytest\n",
            "pytest_monologue/claude/fake_cli.py": "",
        },
        "[pytest11]\nmonologue = pytest_monologue.plugin\n",
    )
    done = check(clean, helpers)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("check_wheels: 2 wheels, no test code, one pytest plugin")


def test_pytest_monologue_without_its_pytest11_entry_point_fails(tmp_path):
    helpers = wheel(tmp_path, "pytest_monologue", {"pytest_monologue/__init__.py": ""})
    done = check(helpers)
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == (
        "pytest_monologue-1.0-py3-none-any.whl: entry_points.txt: declares no pytest11 entry point"
    )


def test_a_file_that_is_not_a_wheel_is_a_clear_error(tmp_path):
    not_a_wheel = tmp_path / "x-1.0-py3-none-any.whl"
    not_a_wheel.write_text("hello")
    done = check(not_a_wheel)
    assert done.returncode == 2
    assert done.stderr.strip() == f"check_wheels: not a wheel file: {not_a_wheel}"
