"""The state document: all-or-nothing change sets, provenance, crash safety, no lost update."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from monologue_skills.errors import StateChangeError, StateFileError
from monologue_skills.state import SkillState, StateStore
from skills_fixtures import only_skills_env, python_tool

from monologue.errors import ConfigError

BUMP = """
count = request["state"].get("counter", 0)
time.sleep(request["parameters"].get("pause", 0))
# "test" makes the change set fail, rather than lose an update, if the state moved meanwhile.
reply(output=count + 1, stateChanges=[
    {"op": "test", "path": "/counter", "value": count} if "counter" in request["state"]
    else {"op": "add", "path": "/started", "value": True},
    {"op": "add", "path": "/counter", "value": count + 1},
])
"""


def chain(count: int, pause: float, prefix: str = "bump") -> dict[str, object]:
    return {
        "actions": [
            {
                "id": f"{prefix}{i}",
                "skill": "bump",
                "parameters": {"pause": pause},
                "depends_on": [f"{prefix}{i - 1}"] if i else [],
            }
            for i in range(count)
        ]
    }


def test_change_set_applies_with_provenance(tmp_path: Path) -> None:
    store = StateStore(tmp_path / "state.json")
    store.apply([{"op": "add", "path": "/a", "value": 1}], skill="s1", action_id="x")
    store.apply([{"op": "replace", "path": "/a", "value": 2}], skill="s2", action_id="y")
    assert store.document() == {"a": 2}
    history = store.history()
    assert [(r.skill, r.actionId) for r in history] == [("s1", "x"), ("s2", "y")]
    assert history[1].ops == [{"op": "replace", "path": "/a", "value": 2}]
    assert history[0].at <= history[1].at
    saved = json.loads((tmp_path / "state.json").read_text())
    assert saved["version"] == 2


def test_a_failing_change_set_leaves_the_state_untouched(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    store = StateStore(path)
    store.apply([{"op": "add", "path": "/a", "value": 1}], skill="s", action_id="1")
    before = path.read_bytes()
    ops = [
        {"op": "add", "path": "/b", "value": 2},
        {"op": "remove", "path": "/missing"},
    ]
    with pytest.raises(
        StateChangeError, match=r"stateChanges of 'bad' \(action '2'\) do not apply"
    ):
        store.apply(ops, skill="bad", action_id="2")
    assert path.read_bytes() == before
    assert store.document() == {"a": 1}


@pytest.mark.parametrize(
    "ops",
    [{"op": "add"}, [{"op": "frobnicate", "path": "/a"}], [{"path": "/a", "value": 1}]],
)
def test_malformed_changes_are_refused_by_name(ops: object) -> None:
    with pytest.raises(StateChangeError, match="stateChanges"):
        SkillState().change(ops)  # type: ignore[arg-type]


def test_a_change_that_is_not_an_object_is_refused() -> None:
    store = StateStore()
    with pytest.raises(StateChangeError, match="not a JSON object"):
        store.apply([{"op": "replace", "path": "", "value": [1]}], skill="s", action_id="1")
    assert store.document() == {}


def test_a_damaged_state_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text('{"document": [1, 2]}')
    with pytest.raises(StateFileError, match=r"state.json: not a monologue state file: document"):
        StateStore(path).document()


def run_plan_process(tmp_path: Path, plan: dict[str, object], state: Path) -> subprocess.Popen[str]:
    plan_file = tmp_path / f"plan-{time.monotonic_ns()}.json"
    plan_file.write_text(json.dumps(plan))
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "monologue",
            "skills",
            "plan",
            str(plan_file),
            "--state",
            str(state),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=only_skills_env(tmp_path, MONOLOGUE_NARRATOR="none"),
        cwd=tmp_path,
    )


def test_sigkill_during_a_plan_leaves_the_last_consistent_version(
    tmp_path: Path, tools_dir: Path
) -> None:
    python_tool(tools_dir, "bump", BUMP)
    state = tmp_path / "state.json"
    proc = run_plan_process(tmp_path, chain(200, 0.0), state)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if state.exists() and json.loads(state.read_text())["version"] >= 5:
            break
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    saved = json.loads(state.read_text())
    # Every change record is one bump; the counter agrees with them: no half-applied set.
    assert 5 <= saved["version"] < 200
    assert saved["document"]["counter"] == saved["version"]
    assert [r["actionId"] for r in saved["changes"]] == [
        f"bump{i}" for i in range(saved["version"])
    ]


def test_two_plans_racing_on_one_state_lose_no_update(tmp_path: Path, tools_dir: Path) -> None:
    python_tool(tools_dir, "bump", BUMP)
    state = tmp_path / "state.json"
    first = run_plan_process(tmp_path, chain(8, 0.02, "a"), state)
    second = run_plan_process(tmp_path, chain(8, 0.02, "b"), state)
    for proc in (first, second):
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    saved = json.loads(state.read_text())
    assert saved["document"]["counter"] == 16
    owners = [r["actionId"][0] for r in saved["changes"]]
    # Serialized: one plan's changes all come before the other's.
    assert owners in (["a"] * 8 + ["b"] * 8, ["b"] * 8 + ["a"] * 8)


def test_a_plan_waiting_too_long_for_the_lock_says_so(tmp_path: Path) -> None:
    from filelock import FileLock

    path = tmp_path / "state.json"
    with FileLock(f"{path}.lock"):
        store = StateStore(path, lock_timeout=0.1)
        with (
            pytest.raises(StateFileError, match="locked by another plan for too long"),
            store.locked(),
        ):
            pass


def test_a_state_path_that_cannot_be_read_is_named(tmp_path: Path) -> None:
    with pytest.raises(StateFileError, match=r"cannot read the state"):
        StateStore(tmp_path).document()


def test_history_is_bounded_by_the_setting_and_says_what_was_compacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONOLOGUE_STATE_HISTORY", "3")
    store = StateStore(tmp_path / "state.json")
    for n in range(8):
        skill = "tally" if n % 2 else "status"
        store.apply([{"op": "add", "path": "/n", "value": n}], skill=skill, action_id=f"a{n}")
    saved = json.loads((tmp_path / "state.json").read_text())
    assert saved["version"] == 8
    assert [c["actionId"] for c in saved["changes"]] == ["a5", "a6", "a7"]
    assert saved["compacted"] == {
        "dropped": 5,
        "versions": [1, 5],
        "skills": {"status": 3, "tally": 2},
    }


def test_the_default_history_is_200() -> None:
    store = StateStore()
    for n in range(205):
        store.apply([{"op": "add", "path": "/n", "value": n}], skill="s", action_id=str(n))
    assert len(store.history()) == 200


def test_a_bad_history_setting_is_named_and_the_default_kept(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("MONOLOGUE_STATE_HISTORY", "lots")
    assert StateStore().history_limit == 200
    assert "state_history = 'lots' (from env MONOLOGUE_STATE_HISTORY)" in caplog.text
    monkeypatch.setenv("MONOLOGUE_STRICT_CONFIG", "1")
    with pytest.raises(ConfigError, match=r"state_history = 'lots' \(from env"):
        StateStore()


def test_secrets_never_reach_the_state_or_its_history(tmp_path: Path) -> None:
    store = StateStore(tmp_path / "state.json")
    store.apply(
        [
            {"op": "add", "path": "/task", "value": "deploy with password=Hq90state"},
            {"op": "add", "path": "/db_password", "value": "Hq91state"},
            {"op": "add", "path": "/creds", "value": {"token": ["Hq92state"]}},
        ],
        skill="status",
        action_id="a",
    )
    text = (tmp_path / "state.json").read_text()
    assert "Hq9" not in text
    assert store.document() == {
        "task": "deploy with password=[REDACTED]",
        "db_password": "[REDACTED]",
        "creds": {"token": "[REDACTED]"},
    }
