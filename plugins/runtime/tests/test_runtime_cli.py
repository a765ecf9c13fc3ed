from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from monologue_runtime import AgentResult, AgentRuntime, TaskStore
from monologue_runtime.cli import tasks
from pytest_monologue import PluginSandbox
from runtime_fixtures import only_this_plugin_env


def run(data_dir: Path, *args: str, store: str = "file") -> Result:
    return CliRunner().invoke(tasks, [*args, "--data-dir", str(data_dir), "--store", store])


def test_add_list_show(store_setting: str, data_dir: Path) -> None:
    def run(data_dir: Path, *args: str) -> Result:
        return globals()["run"](data_dir, *args, store=store_setting)  # type: ignore[no-any-return]

    added = run(data_dir, "add", "build", "--input", '{"target": "wheel"}', "--priority", "3")
    assert added.exit_code == 0, added.output
    build_id = added.output.strip()
    later = run(data_dir, "add", "test", "--id", "tests", "--after", build_id, "--json")
    assert later.exit_code == 0, later.output
    assert json.loads(later.output)["dependency_ids"] == [build_id]

    listing = run(data_dir, "list")
    assert listing.exit_code == 0
    lines = listing.output.splitlines()
    assert lines[0].split() == ["ID", "STATUS", "PRI", "TYPE", "OWNER", "TRIES", "WAITING", "ON"]
    assert lines[1].split() == [build_id, "pending", "3", "build", "-", "0"]
    assert lines[2].split() == ["tests", "pending", "0", "test", "-", "0", build_id]

    as_json = run(data_dir, "list", "--json")
    assert [task["id"] for task in json.loads(as_json.output)] == [build_id, "tests"]
    as_lines = run(data_dir, "list", "--nl", "--type", "build")
    assert [json.loads(line)["id"] for line in as_lines.output.splitlines()] == [build_id]

    shown = run(data_dir, "show", "tests")
    assert shown.exit_code == 0
    assert "status:      pending" in shown.output
    assert f"depends on:  {build_id} (waiting)" in shown.output
    assert json.loads(run(data_dir, "show", build_id, "--json").output)["input"] == {
        "target": "wheel"
    }


def test_show_and_list_a_finished_task(
    store: TaskStore, store_setting: str, data_dir: Path, monologue_plugins: PluginSandbox
) -> None:
    def run(data_dir: Path, *args: str) -> Result:
        return globals()["run"](data_dir, *args, store=store_setting)  # type: ignore[no-any-return]

    store.create("build", id="t1")
    with AgentRuntime("builder", "build", data_dir=data_dir, store=store) as runtime:
        runtime.poll_next_task()
        runtime.complete_task(
            "t1", AgentResult(task_id="t1", notes="all good", artifacts={"wheel": "x.whl"})
        )

    shown = run(data_dir, "show", "t1").output
    assert "status:      completed" in shown
    assert "owner:       builder" in shown
    assert "notes:       all good" in shown
    assert 'artifacts:   {"wheel": "x.whl"}' in shown
    assert len(json.loads(run(data_dir, "list", "--status", "COMPLETED", "--json").output)) == 1
    assert run(data_dir, "list", "--status", "pending").output.startswith("no tasks match in")


def test_empty_graph(data_dir: Path) -> None:
    result = run(data_dir, "list")
    assert result.exit_code == 0
    assert result.output.strip() == f"no tasks in {data_dir / 'tasks.graph.json'}"
    assert not data_dir.exists()


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["show", "nope"], 1, "tasks.graph.json: no task 'nope'"),
        (["add", "build", "--input", "{oops"], 2, "Invalid value for --input: not valid JSON"),
        (["add", "build", "--metadata", "[1]"], 2, "--metadata: must be a JSON object, got list"),
        (["add", "build", "--after", "ghost"], 1, "depends on unknown task(s) 'ghost'"),
        (["add", "build", "--id", " x"], 1, "new task: id: Value error"),
        (["list", "--status", "sleeping"], 2, "'sleeping' is not a status (one of: pending,"),
    ],
)
def test_clear_errors(data_dir: Path, args: list[str], code: int, message: str) -> None:
    result = run(data_dir, *args)
    assert result.exit_code == code
    assert message in result.output
    assert "Traceback" not in result.output


def test_prune_archives_finished_tasks(
    store: TaskStore, store_setting: str, data_dir: Path, monologue_plugins: PluginSandbox
) -> None:
    store.create("build", id="done")
    store.create("build", id="open")
    with AgentRuntime("builder", "build", data_dir=data_dir, store=store) as runtime:
        runtime.poll_next_task()
        runtime.complete_task("done", AgentResult(task_id="done"))

    kept = run(data_dir, "prune", "--older-than", "1d", store=store_setting)
    assert kept.exit_code == 0, kept.output
    assert kept.output.startswith("archived 0 finished tasks from ")
    pruned = run(data_dir, "prune", "--older-than", "0s", "--json", store=store_setting)
    assert json.loads(pruned.output) == {"archived": ["done"]}
    assert [t.id for t in store.list()] == ["open"]
    assert [t.id for t in store.archived()] == ["done"]


@pytest.mark.parametrize("age", ["soon", "-1d", "", "1e400d", "2 fortnights", "999999999999d"])
def test_prune_refuses_a_duration_it_cannot_read(data_dir: Path, age: str) -> None:
    result = run(data_dir, "prune", "--older-than", age)
    assert result.exit_code == 2
    assert f"Invalid value for '--older-than': {age!r} is not a duration: a number and a " in (
        result.output
    )


def test_prune_refuses_a_duration_older_than_any_date(data_dir: Path) -> None:
    result = run(data_dir, "prune", "--older-than", "5000y")
    assert result.exit_code == 2
    assert "'5000y' is too long: it reaches back before the year 1" in result.output


@pytest.mark.parametrize(
    ("args", "code", "line"),
    [
        (
            ["prune", "--older-than", "soon"],
            2,
            "monologue tasks prune: Invalid value for '--older-than': 'soon' is not a duration: "
            "a number and a unit, such as 30d, 12h, 15m, 90s or 1h30m "
            "(see monologue tasks prune --help)",
        ),
        (["show", "nope"], 1, "monologue: {graph}: no task 'nope'"),
        (
            ["list", "--status", "zzz"],
            2,
            "monologue tasks list: Invalid value for --status: 'zzz' is not a status (one of: "
            "pending, in_progress, completed, failed) (see monologue tasks list --help)",
        ),
        (
            ["add", "build", "--id", "t1", "--after", "ghost"],
            1,
            "monologue: {graph}: task 't1' depends on unknown task(s) 'ghost'",
        ),
        (
            ["list", "--store", "sqlite://x"],
            1,
            "monologue: argument store must be 'file' or a postgresql:// URL, got 'sqlite://x'",
        ),
    ],
)
def test_each_command_fails_in_one_line(
    tmp_path: Path, args: list[str], code: int, line: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "monologue", "tasks", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=only_this_plugin_env(tmp_path),
        check=False,
    )
    assert done.returncode == code, done.stderr
    graph = tmp_path / "data" / "tasks.graph.json"
    assert done.stderr.splitlines() == [line.format(graph=graph)]


@pytest.mark.parametrize("age", ["3 weeks", "1h30m", "1.5h", "90", "2w"])
def test_prune_reads_durations_as_people_write_them(data_dir: Path, age: str) -> None:
    result = run(data_dir, "prune", "--older-than", age, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {"archived": []}


def test_a_store_setting_that_is_neither_is_refused(data_dir: Path) -> None:
    result = run(data_dir, "list", store="sqlite:///x.db")
    assert result.exit_code == 1
    assert "must be 'file' or a postgresql:// URL, got 'sqlite:///x.db'" in result.output


def test_corrupt_graph_is_reported_and_kept(data_dir: Path) -> None:
    data_dir.mkdir()
    graph = data_dir / "tasks.graph.json"
    graph.write_text("{truncated")

    for args in (["list"], ["add", "build"], ["show", "x"]):
        result = run(data_dir, *args)
        assert result.exit_code == 1
        assert f"Error: {graph}: not a readable task graph: not valid JSON" in result.output
    assert graph.read_text() == "{truncated"


def _monologue(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed ``monologue`` command with only this plugin loaded."""
    env = only_this_plugin_env(tmp_path)
    script = shutil.which("monologue", path=str(Path(sys.executable).parent))
    assert script is not None
    return subprocess.run(
        [script, *args], capture_output=True, text=True, env=env, timeout=60, check=False
    )


def test_the_installed_command_has_the_tasks_group(tmp_path: Path) -> None:
    added = _monologue(tmp_path, "tasks", "add", "build", "--id", "t1")
    assert added.returncode == 0, added.stderr
    listed = _monologue(tmp_path, "tasks", "list", "--json")
    assert [task["id"] for task in json.loads(listed.stdout)] == ["t1"]
    assert (tmp_path / "data" / "tasks.graph.json").is_file()
    assert not (tmp_path / "xdg").exists()
