"""scripts/tox_summary.py: the per-environment test counts ``scripts/test`` prints."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "tox_summary.py"

pytestmark = pytest.mark.skipif(not SCRIPT.is_file(), reason="needs the repository's scripts/")


@pytest.fixture(scope="module")
def summary() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tox_summary", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("tox_summary", module)
    spec.loader.exec_module(module)
    return module


def env(success: bool, *outputs: str, exit_code: int = 0) -> dict[str, Any]:
    return {
        "result": {"success": success, "exit_code": exit_code},
        "test": [
            {"command": ["pytest"], "output": output, "retcode": exit_code} for output in outputs
        ],
    }


def run(summary: ModuleType, tmp_path: Path, testenvs: dict[str, Any]) -> int:
    journal = tmp_path / "result.json"
    journal.write_text(json.dumps({"testenvs": testenvs}), encoding="utf-8")
    code: int = summary.main(["tox_summary.py", str(journal)])
    return code


@pytest.mark.parametrize(
    ("output", "line"),
    [
        ("collected 3\n...\n===== 3 passed in 0.12s =====\n", "3 passed in 0.12s"),
        (
            "F.\n== 1 failed, 1 passed, 2 skipped in 1.50s ==\n",
            "1 failed, 1 passed, 2 skipped in 1.50s",
        ),
        ("....\n4 passed, 1 warning in 9.10s\n", "4 passed, 1 warning in 9.10s"),
        ("===== no tests ran in 0.01s =====\n", "no tests ran in 0.01s"),
        ("= 2 passed in 0.1s =\nlater\n= 5 passed in 0.2s =\n", "5 passed in 0.2s"),
        ("All checks passed!\n", None),
    ],
)
def test_finds_pytests_summary_line(summary: ModuleType, output: str, line: str | None) -> None:
    assert summary.pytest_line(output) == line


def test_counts_errors_with_failures(summary: ModuleType) -> None:
    assert summary.counts("1 failed, 7 passed, 2 errors in 3.00s") == {
        "failed": 1,
        "passed": 7,
        "error": 2,
    }


def test_prints_each_environment_and_the_total(
    summary: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run(
        summary,
        tmp_path,
        {
            ".pkg": {"result": {"success": True, "exit_code": 0}},
            "core": env(True, "=== 130 passed, 2 skipped in 9.10s ==="),
            "lint": env(True, "All checks passed!"),
            "e2e": {"test": []},  # known to tox but not run
        },
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "  core: 130 passed, 2 skipped in 9.10s\n  lint: ok\n" in out
    assert "e2e" not in out and ".pkg" not in out
    assert out.endswith("environments: 2 passed, 0 failed\ntotal: 130 passed, 0 failed\n")


def test_a_failing_environment_fails_the_run(
    summary: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run(
        summary,
        tmp_path,
        {
            "core": env(False, "== 1 failed, 9 passed, 1 error in 2.00s ==", exit_code=1),
            "type": env(False, "error: Missing return", exit_code=1),
        },
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "  core: 1 failed, 9 passed, 1 error in 2.00s (FAILED, exit code 1)\n" in out
    assert "  type: FAILED (exit code 1)\n" in out
    assert out.endswith("environments: 0 passed, 2 failed\ntotal: 9 passed, 2 failed\n")


def test_a_journal_with_no_environment_fails(summary: ModuleType, tmp_path: Path) -> None:
    assert run(summary, tmp_path, {"core": {"test": []}}) == 1


def test_an_unreadable_journal_fails_naming_it(
    summary: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "absent.json"
    assert summary.main(["tox_summary.py", str(missing)]) == 1
    assert f"cannot read tox's result journal {missing}" in capsys.readouterr().err
