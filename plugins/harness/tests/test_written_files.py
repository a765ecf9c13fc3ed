"""What a harness run leaves on disk, and that it says so (issue 25, defect 8).

A replay is recorded as `monologue replay` is: only with ``record = true``. Whatever is
written (session recordings, the checkpoint) is named on standard error, and in the report
with ``--json``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from pytest_monologue import PluginSandbox
from pytest_monologue.claude import FakeClaude

from monologue.cli import cli

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "harness"
REPLAY = ["harness", "run", str(EXAMPLE / "tasks.md"), "--replay", str(EXAMPLE / "recordings")]
SESSIONS_IN_THE_EXAMPLE = 10  # the harness's, the parser's, 4 coder and 4 reviewer runs


@pytest.fixture
def data(plugins: PluginSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    plugins.load("recorder")
    monkeypatch.setenv("MONOLOGUE_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def test_a_replay_records_nothing_and_names_its_checkpoint(data: Path) -> None:
    result = CliRunner().invoke(cli, REPLAY)
    assert result.exit_code == 0, result.output
    assert not (data / "sessions").exists() or not list((data / "sessions").iterdir())
    [checkpoint] = (data / "harness").iterdir()
    assert checkpoint.name.endswith("-replay.json")  # never the checkpoint a live run resumes
    assert result.stderr.splitlines() == [f"monologue: checkpoint in {checkpoint} (for --resume)"]


def test_a_replay_with_record_true_says_where_it_recorded(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONOLOGUE_RECORD", "true")
    result = CliRunner().invoke(cli, REPLAY)
    assert result.exit_code == 0, result.output
    written = sorted((data / "sessions").glob("*.jsonl"))
    assert len(written) == SESSIONS_IN_THE_EXAMPLE
    assert result.stderr.splitlines()[0] == (
        f"monologue: recorded {SESSIONS_IN_THE_EXAMPLE} sessions in {data / 'sessions'} "
        "(monologue sessions lists them)"
    )
    headers = [json.loads(path.read_text().splitlines()[0]) for path in written]
    assert all("replay_of" in header["meta"] for header in headers)
    listed = CliRunner().invoke(cli, ["sessions", "--json"])
    titles = sorted(row["title"] for row in json.loads(listed.stdout))
    # What each run worked on, not "(no prompt)": the harness and parser the tasks file,
    # the coder and reviewer runs their task (T002 was coded and reviewed twice).
    assert titles == ["T001"] * 2 + ["T002"] * 4 + ["T003"] * 2 + ["tasks.md"] * 2


def test_json_report_names_the_files(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MONOLOGUE_RECORD", "true")
    result = CliRunner().invoke(cli, [*REPLAY, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert sorted(report["recordings"]) == sorted(
        str(p) for p in (data / "sessions").glob("*.jsonl")
    )
    assert Path(report["checkpoint"]).is_file()
    assert result.stderr == ""  # --json: the report says it, nothing else is printed


def test_a_live_run_is_recorded_and_says_so(
    data: Path, tmp_path: Path, three_tasks: Path, fake_claude: FakeClaude
) -> None:
    result = CliRunner().invoke(
        cli,
        ["harness", "run", str(three_tasks), "--offline-parse", "--cli-path", str(fake_claude.cli)],
    )
    assert result.exit_code == 0, result.output
    # The harness's session, and 4 coder and 4 reviewer runs (T002 is rejected once).
    written = list((data / "sessions").glob("*.jsonl"))
    assert len(written) == 9
    assert f"monologue: recorded 9 sessions in {data / 'sessions'}" in result.stderr
