"""End to end: ``python examples/quickstart.py`` runs offline, as its own process, and prints
the agent's narration in the first person. Needs monologue-buffer and monologue-template."""

from __future__ import annotations

import re
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from e2e_support import run_command

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "examples" / "quickstart.py"
NEEDED = {"buffer", "template"}

pytestmark = pytest.mark.skipif(
    not NEEDED.issubset(ep.name for ep in entry_points(group="monologue")),
    reason=f"needs the {', '.join(sorted(NEEDED))} plugins installed",
)


def test_quickstart_prints_first_person_narration(tmp_path: Path, env: dict[str, str]) -> None:
    # Whatever else is installed (a recorder) writes under the test's folder, and no
    # configuration file of the developer's applies.
    done = run_command([sys.executable, str(QUICKSTART)], env, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    narration = [line.removeprefix("  » ") for line in lines if line.startswith("  » ")]
    assert narration, done.stdout
    assert all(re.search(r"\bI('m|'ll)?\b", line) for line in narration), narration
    spoken = " ".join(narration)
    # It names concrete subjects and says plainly what failed, and how the run ended.
    assert "examples/" in spoken
    assert "ModuleNotFoundError: No module named 'retry_helpers'" in spoken
    assert "I'm done after 6 tool calls, 1 of which failed." in spoken
    assert lines[-1].startswith("answer: ") and "example files talk about retries" in lines[-1]
