"""A failing disk never fails the agent: reported once, naming the plugin and the file."""

from __future__ import annotations

import errno
import logging
import os
from pathlib import Path

import pytest
from conftest import recording_of, wait_for
from monologue_recorder import writer
from pytest_monologue import MockNarrator, PluginSandbox

from monologue.recording import read_recording


def recorder_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.ERROR and "monologue-recorder" in r.getMessage()
    ]


def break_writes_after(monkeypatch: pytest.MonkeyPatch, good: int, code: int) -> list[int]:
    """Fault injection at the file layer: ``os.write`` works ``good`` times, then fails with
    ``code``. Returns the descriptors of every call."""
    calls: list[int] = []
    real = os.write

    def write(fd: int, data: bytes) -> int:
        calls.append(fd)
        if len(calls) > good:
            raise OSError(code, os.strerror(code))
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)
    return calls


def test_a_file_that_cannot_be_opened_is_reported_once_and_the_agent_completes(
    recorder: PluginSandbox,
    record_dir: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    mock_narrator: MockNarrator,
) -> None:
    def refuse(path: str, flags: int, mode: int = 0o777) -> int:
        # Fault injection: what a read-only folder answers (root ignores real permissions).
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)

    monkeypatch.setattr(os, "open", refuse)
    with caplog.at_level(logging.ERROR, logger="monologue"), recorder.session("coder") as s:
        for number in range(5):
            s.text(f"event {number}")

    assert s.closed and s.stats.narratives == 1
    errors = recorder_errors(caplog)
    assert len(errors) == 1
    assert str(recording_of(record_dir, s.id)) in errors[0]
    assert "Permission denied" in errors[0]


def test_a_record_dir_that_cannot_be_created_is_reported_once(
    recorder: PluginSandbox, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    caplog.set_level(logging.ERROR, logger="monologue")
    with recorder.session("coder", narrator="none", record_dir=str(blocker / "sessions")) as s:
        s.text("hello")

    assert s.closed
    errors = recorder_errors(caplog)
    assert len(errors) == 1
    assert str(blocker / "sessions") in errors[0]


def test_a_full_disk_stops_the_recording_keeps_what_was_written_and_the_agent_completes(
    recorder: PluginSandbox,
    record_dir: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The header and the first event go through, then the disk is full.
    break_writes_after(monkeypatch, 2, errno.ENOSPC)
    caplog.set_level(logging.ERROR, logger="monologue")
    with recorder.session("coder", narrator="none", durability="always") as s:
        s.text("before")
        for number in range(100):
            s.text(f"after {number}")

    assert s.closed and s.stats.events == 102
    errors = recorder_errors(caplog)
    assert len(errors) == 1
    assert "the disk is full" in errors[0]
    assert str(recording_of(record_dir, s.id)) in errors[0]
    kept = list(read_recording(recording_of(record_dir, s.id)))
    assert [event.data["text"] for event in kept] == ["before"]


def test_a_failing_background_flush_is_reported_once(
    recorder: PluginSandbox,
    record_dir: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The header goes through; every batch after it fails.
    calls = break_writes_after(monkeypatch, 1, errno.EIO)
    caplog.set_level(logging.ERROR, logger="monologue")
    with recorder.session("coder", narrator="none") as s:
        s.text("waits for the flusher")
        assert wait_for(lambda: len(calls) == 2)  # the flusher's write, which fails
        for number in range(3 * writer.BATCH_EVENTS):
            s.text(f"event {number}")

    assert s.closed
    assert len(recorder_errors(caplog)) == 1
    assert len(calls) == 2  # after the failure, nothing more is attempted
