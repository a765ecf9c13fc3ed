"""The examples: the README's command runs examples/plans/release.json with the example tools
(one in Python, one in JavaScript on node)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from skills_fixtures import only_skills_env

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.mark.skipif(shutil.which("node") is None, reason="the milestones example tool needs node")
def test_release_plan_runs_with_the_example_tools(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    command = [
        "skills", "plan", str(EXAMPLES / "plans" / "release.json"),
        "--tools-dir", str(EXAMPLES / "tools"), "--state", str(state), "--json",
    ]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "monologue", *command],
        capture_output=True,
        text=True,
        env=only_skills_env(tmp_path),
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {r["status"] for r in report["results"]} == {"succeeded"}
    document = json.loads(state.read_text())["document"]
    assert document["milestones"]["v1"] == {"title": "Release 1.0", "progress": 100, "done": True}
    assert document["checklist"]["items"] == [
        {"text": "tests pass", "done": True},
        {"text": "release notes", "done": False},
    ]
    # The actions were narrated like any agent work (template narrator, on stderr).
    assert "checklist" in done.stderr and "milestones" in done.stderr


def test_example_tools_describe_themselves() -> None:
    for tool, language in (("checklist", "python3"), ("milestones", "node")):
        if shutil.which(language) is None:
            continue
        done = subprocess.run(
            [str(EXAMPLES / "tools" / tool), "--describe"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert json.loads(done.stdout)["name"] == tool
