"""The README opens with two lines of what `scripts/demo` prints: they must be what the
demo's replay (`monologue replay examples/sessions/fix-retry-limit.claude.jsonl`, template
narrator) really says, so the first thing a reader sees is true."""

from __future__ import annotations

import re
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from e2e_support import run_command

ROOT = Path(__file__).resolve().parents[2]
MONOLOGUE = Path(sys.executable).with_name("monologue")

pytestmark = pytest.mark.skipif(
    not {"claude", "template"}.issubset(ep.name for ep in entry_points(group="monologue")),
    reason="needs the claude and template plugins installed",
)


def readme_sample() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^```\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    assert match, "README.md has no sample block before its first console block"
    return match.group(1).splitlines()


def test_the_readmes_sample_is_what_the_demo_prints(env: dict[str, str]) -> None:
    sample = readme_sample()
    assert len(sample) >= 2
    done = run_command(
        [str(MONOLOGUE), "replay", "examples/sessions/fix-retry-limit.claude.jsonl"],
        dict(env, NO_COLOR="1", COLUMNS="400"),
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    printed = done.stdout.splitlines()
    for line in sample:
        assert line in printed, f"README line not printed by the demo: {line!r}"
