"""A third-party skill distribution, built and pip-installed into this environment: listed by
`monologue skills list`, used by a plan; a skill package failing at import is listed as
failed while the others work. Subprocesses discover entry points as a user's would."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_monologue import installed_plugins
from skills_fixtures import FIRST_PARTY, only_skills_env

DICE = """
from monologue import SkillResult, hookimpl

@hookimpl
def register_skills(register):
    register(
        "tally",
        description="Add a number to the tally in the state",
        parameters={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    )

@hookimpl
def execute_skill(call, state):
    total = state.document.get("tally", 0) + call.args["n"]
    state.change([{"op": "add", "path": "/tally", "value": total}])
    return SkillResult(ok=True, output=total)
"""

BROKEN = """
raise ImportError("this skill pack needs libwizard, which is missing")
"""

DISTS = {
    "monologue-tally": ("tally", "monologue_tally", DICE),
    "monologue-wizardry": ("wizardry", "monologue_wizardry", BROKEN),
}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with installed_plugins(tmp_path_factory.mktemp("dists"), DISTS, version="0.3.0"):
        yield


def monologue(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    plugins = ",".join(
        [
            "monologue-skills",
            "monologue-template",
            "monologue-buffer",
            *FIRST_PARTY,
            "tally",
            "wizardry",
        ]
    )
    return subprocess.run(
        [sys.executable, "-m", "monologue", *args],
        capture_output=True,
        text=True,
        env=only_skills_env(tmp_path, MONOLOGUE_LOAD_PLUGINS=plugins),
        cwd=tmp_path,
        timeout=60,
    )


@pytest.mark.usefixtures("installed")
def test_installed_skill_is_listed_and_the_broken_one_is_failed(tmp_path: Path) -> None:
    done = monologue(tmp_path, "skills", "list", "--json")
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert rows["tally"]["plugin"] == "tally" and rows["tally"]["status"] == "ok"
    assert rows["tally"]["parameters"]["required"] == ["n"]
    assert rows["wizardry"]["status"] == "failed"
    assert "libwizard" in rows["wizardry"]["error"]
    assert rows["speak"]["status"] == "ok"  # the others work


@pytest.mark.usefixtures("installed")
def test_a_plan_uses_the_installed_skill(tmp_path: Path) -> None:
    plan = {
        "actions": [
            {"id": "one", "skill": "tally", "parameters": {"n": 2}},
            {"id": "two", "skill": "tally", "parameters": {"n": 5}, "depends_on": ["one"]},
            {
                "id": "board",
                "skill": "status",
                "parameters": {"task": "count"},
                "depends_on": ["two"],
            },
        ]
    }
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan))
    state = tmp_path / "state.json"
    done = monologue(tmp_path, "skills", "plan", str(plan_file), "--state", str(state), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [r["output"] for r in report["results"][:2]] == [2, 7]
    saved = json.loads(state.read_text())
    assert saved["document"] == {"tally": 7, "status": {"task": "count"}}
    assert [c["skill"] for c in saved["changes"]] == ["tally", "tally", "status"]
