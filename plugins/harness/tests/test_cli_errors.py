"""Each command of this plugin fails with one line on standard error, naming the input and
what is wrong, exit 2 for a usage error and 1 for a failure (issue 25)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "harness"


@pytest.mark.parametrize(
    ("args", "code", "start"),
    [
        (
            ["harness", "run", "missing.md"],
            2,
            "monologue harness run: Invalid value for 'TASKS_FILE': File 'missing.md' does not",
        ),
        (
            ["harness", "run", "bad.md", "--offline-parse"],
            1,
            "monologue: bad.md: no tasks found (expected lines like '- [ ] T001 text')",
        ),
        (
            ["harness", "run", str(EXAMPLE / "tasks.md"), "--replay", "empty"],
            1,
            "monologue: no recording of agent 'parser' for prompt hash a979a68bd247a362 in empty",
        ),
        (
            ["harness", "run", "bad.md", "--record", "r", "--replay", "empty"],
            2,
            "monologue harness run: --record and --replay exclude each other",
        ),
        (["prompts", "show", "nope.md"], 1, "monologue: prompt template 'nope.md' not found in"),
    ],
)
def test_each_command_fails_in_one_line(
    tmp_path: Path, args: list[str], code: int, start: str
) -> None:
    (tmp_path / "bad.md").write_text("nothing to do here\n")
    (tmp_path / "empty").mkdir()
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "MONOLOGUE_NO_CONFIG_FILE": "1",
        "MONOLOGUE_DATA_DIR": str(tmp_path / "data"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "monologue", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == code, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(start), line
