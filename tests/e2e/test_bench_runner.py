"""``python -m benchmarks`` runs each module in a fresh interpreter and gathers its figures:
the table and ``results.json`` hold what the child measured."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_module_run_apart_reports_its_figures(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    command = [sys.executable, "-m", "benchmarks", "--only", "buffer_policy", "--quick"]
    done = subprocess.run(
        [*command, "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    payload = json.loads(out.read_text())
    assert payload["failed"] == []
    names = [figure["name"] for figure in payload["figures"]]
    assert names and all(figure["group"] == "buffer policy" for figure in payload["figures"])
    # The parent printed the child's figures in its own table.
    assert all(name in done.stdout for name in names)
    assert "running buffer_policy" in done.stderr  # the child's progress, passed through


def test_every_module_the_benchmarks_need_is_declared(tmp_path: Path) -> None:
    # bench_ids imports python-ulid, which no monologue distribution brings: it runs only
    # where benchmarks/requirements.txt was installed, as scripts/bootstrap and tox do.
    out = tmp_path / "results.json"
    command = [sys.executable, "-m", "benchmarks", "--only", "ids", "--quick", "--json", str(out)]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, check=False, timeout=300
    )
    assert done.returncode == 0, done.stderr
    payload = json.loads(out.read_text())
    assert payload["failed"] == []
    assert any("python-ulid" in figure["name"] for figure in payload["figures"])
