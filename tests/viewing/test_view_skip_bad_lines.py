"""Without ``--strict``, a bad or over-long line is skipped with a warning naming the file and
the line, and everything after it is still read: by replay, log, watch and the reader."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from pytest_monologue import PluginSandbox
from test_view_watch import Agent, Shown, completion, header, read_call
from viewing_support import Cli, recording_of

from monologue.lines import MAX_LINE_BYTES
from monologue.recording import read_recording
from monologue.replay._watch import Watch

HUGE = b'{"type": "text", "data": {"text": "' + b"x" * (MAX_LINE_BYTES + 1024) + b'"}}'


@pytest.fixture
def damaged(recorder: PluginSandbox, record_dir: Path) -> Path:
    """A recording with a line of invalid JSON (line 4) and an over-long one (line 7)."""
    with recorder.session("coder", narrator="none") as s:
        for name in ("a.py", "b.py", "c.py", "d.py"):
            call = s.tool_call("Read", {"file_path": name})
            s.tool_result(call.data["tool_use_id"], f"contents of {name}")
    path = recording_of(record_dir, s.id)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([*lines[:3], b"{not json\n", *lines[3:5], HUGE + b"\n", *lines[5:]]))
    return path


def test_the_reader_skips_bad_lines_with_a_warning_and_reads_on(
    damaged: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="monologue"):
        reader = read_recording(damaged)
        events = list(reader)
    assert [event.type for event in events].count("tool_call") == 4
    assert events[-1].type == "completion"
    assert reader.skipped == 2
    assert f"{damaged}:4: invalid JSON" in caplog.text
    assert f"{damaged}:7: line is longer than the 8 MiB limit" in caplog.text
    assert "--strict makes this an error" in caplog.text


def test_replay_goes_on_past_bad_lines_and_counts_them(run_cli: Cli, damaged: Path) -> None:
    result = run_cli("replay", "--json", "--narrator", "none", str(damaged))
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.splitlines()[-1])
    assert summary["events"] == 9 and summary["tool_calls"] == 4
    assert summary["skipped_lines"] == 2 and summary["problem"] is None
    assert f"{damaged}:4: invalid JSON" in result.stderr
    assert f"{damaged}:7: line is longer" in result.stderr


def test_replay_strict_stops_at_the_first_bad_line(run_cli: Cli, damaged: Path) -> None:
    result = run_cli("replay", "--strict", "--json", "--narrator", "none", str(damaged))
    assert result.exit_code == 1
    assert f"monologue: {damaged}:4: invalid JSON" in result.stderr
    assert json.loads(result.stdout.splitlines()[-1])["events"] == 2


def test_log_goes_on_past_bad_lines_and_strict_stops(run_cli: Cli, damaged: Path) -> None:
    result = run_cli("log", str(damaged))
    assert result.exit_code == 0, result.output
    assert "file_path=d.py" in result.stdout
    assert f"{damaged}:7: line is longer" in result.stderr

    strict = run_cli("log", "--strict", str(damaged))
    assert strict.exit_code == 1
    assert f"monologue: {damaged}:4: invalid JSON" in strict.stderr
    assert "file_path=d.py" not in strict.stdout


def test_watch_skips_a_bad_and_an_over_long_line_and_reads_on(
    recorder: PluginSandbox, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "live.jsonl"
    path.write_bytes(header())
    chunks = [b"{broken\n", b"x" * (MAX_LINE_BYTES // 2), b"x" * (MAX_LINE_BYTES // 2 + 10)]
    chunks += [b"x\n", b"".join(read_call("after.py", 1)), completion()]
    agent = Agent(path, chunks)
    shown = Shown()
    with caplog.at_level(logging.WARNING, logger="monologue"):
        summary = Watch(
            path, shown, config={"narrator": "none"}, sleep=agent.sleep, clock=agent.clock
        ).run()
    assert summary.problem is None
    assert summary.skipped_lines == 2
    assert [event.type for event in shown.events] == ["tool_call", "tool_result", "completion"]
    assert f"{path}:2: invalid JSON" in caplog.text
    assert f"{path}:3: line is longer than the 8 MiB limit" in caplog.text


@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
def test_an_incomplete_last_line_is_skipped_and_counted_even_when_strict(
    run_cli: Cli, recorder: PluginSandbox, record_dir: Path, strict: bool
) -> None:
    # What a recorder killed while writing leaves: every line whole but a cut last one.
    with recorder.session("coder", narrator="none") as s:
        for name in ("a.py", "b.py"):
            call = s.tool_call("Read", {"file_path": name})
            s.tool_result(call.data["tool_use_id"], f"contents of {name}")
    path = recording_of(record_dir, s.id)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    reader = read_recording(path, strict=strict)
    assert [event.type for event in reader] == ["tool_call", "tool_result"] * 2
    assert reader.skipped == 1
    result = run_cli("replay", *(["--strict"] if strict else []), "--json", str(path))
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.splitlines()[-1])
    assert summary["events"] == 4 and summary["skipped_lines"] == 1
    assert f"{path}:{len(lines)}: the last line is incomplete" in result.stderr
