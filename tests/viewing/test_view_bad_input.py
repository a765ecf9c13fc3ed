"""Bad input with ``--strict``: one clear message naming the file, the line and the problem,
a non-zero exit, and the events before the bad line still narrated. (Without it a bad line
is skipped with a warning: test_view_skip_bad_lines.py.)"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from pytest_monologue import MockNarrator, PluginSandbox
from viewing_support import Cli, recording_of

from monologue import hookimpl
from monologue.errors import RecordingError
from monologue.lines import MAX_LINE_BYTES
from monologue.recording import read_recording


@pytest.fixture
def recording(recorder: PluginSandbox, record_dir: Path) -> Path:
    """A real recording: header, 3 tool calls with results, completion (9 lines)."""
    with recorder.session("coder", narrator="none") as s:
        for name in ("client.py", "config.py", "test_client.py"):
            call = s.tool_call("Read", {"file_path": name})
            s.tool_result(call.data["tool_use_id"], f"contents of {name}")
    return recording_of(record_dir, s.id)


def with_bad_line(path: Path, bad: bytes, after: int = 4) -> Path:
    """The recording with ``bad`` inserted after its first ``after`` lines."""
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([*lines[:after], bad + b"\n", *lines[after:]]))
    return path


def replay_fails(run_cli: Cli, path: Path, *args: str) -> tuple[list[str], str]:
    result = run_cli("replay", "--strict", str(path), *args)
    assert result.exit_code == 1, result.output
    problems = [line for line in result.stderr.splitlines() if line.startswith("monologue:")]
    assert len(problems) == 1, result.stderr
    return result.stdout.splitlines(), problems[0]


BAD_LINES = [
    pytest.param(b'{"type": "text", "data": {"text": "unfinished', "invalid JSON", id="json"),
    pytest.param(
        b'{"type": "tool_call", "data": {"tool_name": 7, "tool_use_id": "t1"}}',
        "bad event: data.tool_name: Input should be a valid string",
        id="field-type",
    ),
    pytest.param(
        b'{"type": "text", "ts": "yesterday", "data": {"text": "x"}}',
        "bad event: ts:",
        id="timestamp",
    ),
    pytest.param(
        b'{"type": "text", "data": {"text": "caf\xe9"}}',
        "not valid UTF-8 (byte 0xe9 at column 39)",
        id="utf-8",
    ),
    pytest.param(b"[1, 2, 3]", "expected a JSON object", id="not-an-object"),
]


@pytest.mark.parametrize(("bad", "message"), BAD_LINES)
def test_a_bad_line_is_named_after_the_events_before_it_are_narrated(
    run_cli: Cli, recording: Path, mock_narrator: MockNarrator, bad: bytes, message: str
) -> None:
    mock_narrator.default = "I read some files."
    narrated, problem = replay_fails(run_cli, with_bad_line(recording, bad))

    assert problem.startswith(f"monologue: {recording}:5: ")
    assert message in problem
    assert narrated and narrated[-1].endswith("coder: I read some files.")
    covered = [event.type for call in mock_narrator.calls for event in call.events]
    # The three lines before the bad one, and the completion that ends the replay.
    assert covered == ["tool_call", "tool_result", "tool_call", "completion"]


def test_the_json_summary_says_what_was_read_and_what_went_wrong(
    run_cli: Cli, recording: Path
) -> None:
    bad = str(with_bad_line(recording, b"{"))
    result = run_cli("replay", "--strict", "--json", "--narrator", "none", bad)
    assert result.exit_code == 1
    summary = json.loads(result.stdout.splitlines()[-1])
    assert summary["events"] == 3
    assert summary["tool_calls"] == 2
    assert summary["problem"].startswith(f"{recording}:5: invalid JSON")


def test_a_line_of_several_megabytes_is_refused_without_reading_it_all(
    run_cli: Cli, recording: Path
) -> None:
    huge = b'{"type": "text", "data": {"text": "' + b"x" * (MAX_LINE_BYTES + 1024) + b'"}}'
    _, problem = replay_fails(run_cli, with_bad_line(recording, huge), "--narrator", "none")
    assert problem == (
        f"monologue: {recording}:5: line is longer than the 8 MiB limit; refusing to read it"
    )


def test_a_newer_format_version_is_refused_by_name(run_cli: Cli, recording: Path) -> None:
    lines = recording.read_bytes().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["monologue"] = 99
    recording.write_bytes(json.dumps(header).encode() + b"\n" + b"".join(lines[1:]))

    _, problem = replay_fails(run_cli, recording)
    assert problem.startswith(f"monologue: {recording}:1: recording format 99 is newer")


def test_a_bad_header_is_named(run_cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "bad-header.jsonl"
    path.write_text('{"monologue": 1, "agent": "coder"}\n')
    _, problem = replay_fails(run_cli, path)
    assert problem.startswith(f"monologue: {path}:1: bad recording header: session_id")


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        pytest.param(lambda p: None, "no such file", id="missing"),
        pytest.param(lambda p: p.mkdir(), "is a directory", id="directory"),
        pytest.param(lambda p: p.write_bytes(b""), "empty file", id="empty"),
    ],
)
def test_a_file_that_is_not_there_or_empty_is_named(
    run_cli: Cli, tmp_path: Path, setup: object, message: str
) -> None:
    path = tmp_path / "session.jsonl"
    setup(path)  # type: ignore[operator]
    _, problem = replay_fails(run_cli, path)
    assert problem.startswith(f"monologue: {path}: ")
    assert message in problem


def test_an_unknown_format_lists_what_the_installed_readers_say(
    run_cli: Cli, recorder: PluginSandbox, tmp_path: Path
) -> None:
    class CsvReader:
        @hookimpl
        def load_session(self, path: Path) -> None:
            """CSV exports of agent runs"""

    recorder.register(CsvReader(), "csv")
    path = tmp_path / "notes.txt"
    path.write_text("just some notes\n")
    _, problem = replay_fails(run_cli, path)
    assert problem.startswith(f"monologue: {path}: unknown format")
    stderr = run_cli("replay", str(path)).stderr
    assert "\n  - csv: not recognised (reads CSV exports of agent runs)" in stderr


def test_a_recording_needs_no_reader_plugin(run_cli: Cli, recording: Path) -> None:
    result = run_cli("replay", "--json", "--narrator", "none", str(recording))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.splitlines()[-1])["format"] == "monologue"


def test_an_incomplete_last_line_is_skipped_with_a_warning(
    run_cli: Cli, recording: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = recording.read_bytes()
    recording.write_bytes(data[:-25])  # a write interrupted in the middle of the last line

    with caplog.at_level(logging.WARNING, logger="monologue"):
        events = list(read_recording(recording))
    assert len(events) == 6
    assert f"{recording}:8: the last line is incomplete" in caplog.text

    result = run_cli("replay", "--json", "--narrator", "none", str(recording))
    assert result.exit_code == 0
    assert json.loads(result.stdout.splitlines()[-1])["events"] == 6
    assert f"{recording}:8: the last line is incomplete" in result.stderr


def test_an_incomplete_line_in_the_middle_is_an_error(recording: Path) -> None:
    with_bad_line(recording, b'{"type": "text", "data": {"te')
    with pytest.raises(RecordingError, match=r":5: invalid JSON"):
        list(read_recording(recording, strict=True))


def test_blank_lines_and_repeated_headers_are_skipped(recording: Path) -> None:
    lines = recording.read_bytes().splitlines(keepends=True)
    recording.write_bytes(b"".join([*lines[:3], b"\n", lines[0], *lines[3:]]))
    assert len(list(read_recording(recording))) == 7
