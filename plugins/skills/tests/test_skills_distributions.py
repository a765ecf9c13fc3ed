"""Each first-party skill is a distribution of its own: in a fresh virtual environment with
the core, monologue-skills and the four skill distributions installed, a real
``uv pip uninstall`` of one removes exactly that skill from ``monologue skills list``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from skills_fixtures import FIRST_PARTY

REPO = Path(__file__).resolve().parents[3]
UV = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))

pytestmark = pytest.mark.skipif(not Path(UV).exists(), reason="needs uv (tox env skills has it)")


def uv(*args: str) -> None:
    subprocess.run([UV, *args], check=True, capture_output=True, timeout=300)


def listed(venv: Path, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MONOLOGUE_", "VIRTUAL_ENV"))}
    env.update(MONOLOGUE_NO_CONFIG_FILE="1", HOME=str(tmp_path))
    done = subprocess.run(
        [str(venv / "bin" / "monologue"), "skills", "list", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return {row["name"]: row["plugin"] for row in json.loads(done.stdout)}


def test_uninstalling_a_skill_distribution_removes_exactly_that_skill(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    python = str(venv / "bin" / "python")
    uv("venv", "-q", str(venv), "--python", sys.executable)
    editables = [f"-e{REPO}", f"-e{REPO / 'plugins' / 'skills'}"]
    editables += [f"-e{REPO / 'plugins' / name}" for name in FIRST_PARTY]
    uv("pip", "install", "-q", "--python", python, *editables)
    before = listed(venv, tmp_path)
    assert before == {name: name for name in FIRST_PARTY}

    uv("pip", "uninstall", "-q", "--python", python, "monologue-notify")
    assert listed(venv, tmp_path) == {n: n for n in FIRST_PARTY if n != "notify"}

    uv("pip", "uninstall", "-q", "--python", python, "monologue-webhook")
    assert listed(venv, tmp_path) == {n: n for n in FIRST_PARTY if n not in ("notify", "webhook")}
