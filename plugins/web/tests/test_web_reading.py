"""Reading recordings (regular files only, raw lines) and summarising a folder of them
(the catalog)."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from monologue_web.catalog import SessionCatalog, recording_path
from monologue_web.reading import NotARecording, RecordingLines
from web_fixtures import Recording

from monologue.errors import RecordingError
from monologue.events import Event
from monologue.lines import MAX_LINE_BYTES


def test_the_tail_reads_complete_lines_only_and_then_what_is_appended(
    recording: Callable[..., Recording],
) -> None:
    rec = recording()
    first = rec.add("text", {"text": "one"})
    tail = RecordingLines(rec.path)
    assert tail.header.agent == "coder"
    assert [e["id"] for _, _, e in tail.read()] == [first.id]
    assert tail.read() == []
    second = Event(type="text", data={"text": "two"}, session_id=rec.session_id)
    line = second.to_json().encode()
    # Half of a line being written waits for its newline.
    with rec.path.open("ab") as stream:
        stream.write(line[:40])
    assert tail.read() == []
    with rec.path.open("ab") as stream:
        stream.write(line[40:] + b"\n")
    ((lineno, raw, event),) = tail.read()
    assert (lineno, event["id"], raw) == (3, second.id, line + b"\n")
    tail.close()


def test_a_bad_line_is_skipped_with_a_warning(
    recording: Callable[..., Recording], caplog: pytest.LogCaptureFixture
) -> None:
    rec = recording()
    with rec.path.open("a") as stream:
        stream.write('{"type": "tool_call", "data": {"tool_name": 3}}\n\n{"id": "x",\n')
    after = rec.add("text", {"text": "after"})
    with caplog.at_level(logging.WARNING, "monologue.web"), RecordingLines(rec.path) as tail:
        assert [e["id"] for _, _, e in tail.read()] == [after.id]
    assert ":2: not a recorded event; skipped" in caplog.text
    assert ":4: not a recorded event; skipped" in caplog.text


def test_a_line_over_the_limit_stops_the_tail_naming_the_line(
    recording: Callable[..., Recording],
) -> None:
    rec = recording()
    before = rec.add("text", {"text": "before"})
    with rec.path.open("a") as stream:
        stream.write("x" * (2 * MAX_LINE_BYTES) + "\n")
    with RecordingLines(rec.path) as tail:
        assert [e["id"] for _, _, e in tail.read()] == [before.id]
        with pytest.raises(RecordingError, match=r":3: line is longer than the 8 MiB limit"):
            tail.read()


def test_a_resumed_tail_starts_after_the_given_line(recording: Callable[..., Recording]) -> None:
    rec = recording()
    events = [rec.add("text", {"text": str(n)}) for n in range(4)]
    with RecordingLines(rec.path, after_line=3) as tail:
        assert [(n, e["id"]) for n, _, e in tail.read()] == [(4, events[2].id), (5, events[3].id)]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("", "no recording header"),
        ('{"monologue":1,"session_id"', "no recording header"),
        ('{"type": "text"}\n', "no recording header"),
        ('{"monologue":1,"agent":"a"}\n', "bad recording header: session_id: Field required"),
        (
            '{"monologue":9,"session_id":"s","agent":"a","started_at":"2026-01-01T00:00:00Z"}\n',
            "recording format 9 is newer",
        ),
    ],
)
def test_a_file_that_is_no_recording_is_refused(tmp_path: Path, content: str, problem: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(content)
    with pytest.raises(NotARecording, match=problem.replace("(", r"\(").replace(")", r"\)")):
        RecordingLines(path)


def test_the_catalog_counts_and_follows_each_session(
    record_dir: Path, recording: Callable[..., Recording]
) -> None:
    rec = recording("LIVE")
    steps = rec.tool_step("Bash", {"command": "make"}, "failed", is_error=True)
    rec.narrate("make failed.", steps)
    rec.add("error", {"message": "the agent crashed"})
    rec.add("narration_suppressed", {"reason": "throttled"})
    (record_dir / "notes.jsonl").write_text("not a recording\n")
    (record_dir / "other.txt").write_text("ignored\n")
    catalog = SessionCatalog(record_dir)
    (row,) = catalog.summaries()
    assert (row.id, row.state, row.events, row.narratives, row.errors, row.silences) == (
        "LIVE",
        "live",
        5,
        1,
        2,
        1,
    )
    rec.add("completion", {"result": None, "is_error": True})
    (row,) = catalog.summaries()
    assert (row.state, row.completed, row.failed, row.events) == ("finished", True, True, 6)
    rec.path.unlink()
    assert catalog.summaries() == []
    catalog.close()


def test_a_session_idle_for_long_without_completing_is_no_longer_live(
    record_dir: Path, recording: Callable[..., Recording]
) -> None:
    rec = recording("KILLED")
    rec.add("text", {"text": "then the process was killed"})
    catalog = SessionCatalog(record_dir, idle_after=60)
    assert catalog.summaries()[0].state == "live"
    old = time.time() - 120
    os.utime(rec.path, (old, old))
    row = catalog.summaries()[0]
    assert (row.state, row.completed) == ("finished", False)
    catalog.close()


def test_session_ids_only_name_files_inside_the_folder(
    record_dir: Path, recording: Callable[..., Recording]
) -> None:
    rec = recording("01K9Z8M2Q4T6V8X0Z2B4D6F8H0")
    (record_dir / "sub.jsonl").mkdir()
    assert recording_path(record_dir, rec.session_id) == rec.path.resolve()
    for bad in [
        "../sessions/" + rec.session_id,
        "/etc/passwd",
        "..",
        "a..b",
        ".hidden",
        "",
        "sub",
        "x" * 200,
        "a/b",
        "a\\b",
        "a\x00b",
    ]:
        assert recording_path(record_dir, bad) is None, bad


def test_a_large_new_recording_is_counted_over_several_refreshes(
    record_dir: Path, recording: Callable[..., Recording]
) -> None:
    rec = recording("LARGE")
    for _ in range(40):
        rec.add("text", {"text": "x" * 1_000_000})
    rec.add("completion", {"result": None, "is_error": False})
    catalog = SessionCatalog(record_dir)
    first = catalog.summaries()[0]
    assert (first.counted, first.state) == (False, "finished" if first.completed else "live")
    assert 0 < first.events < 41
    rows = [catalog.summaries()[0] for _ in range(3)]
    assert (rows[-1].counted, rows[-1].events, rows[-1].state) == (True, 41, "finished")
    assert rows[0].events > first.events
    catalog.close()
