"""A disk that fills up in the middle of a line never leaves a partial line behind, whatever
the durability: the file ends on the last whole line, and the error says what happened."""

from __future__ import annotations

import errno
import logging
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import HERE, recording_of, subprocess_env
from pytest_monologue import PluginSandbox

from monologue.recording import read_recording


def fill_disk_after(monkeypatch: pytest.MonkeyPatch, good: int) -> None:
    """Fault injection at the file layer, as a full disk behaves: ``good`` writes go through,
    the next one writes only half its bytes (a short write), and every later one fails with
    ENOSPC."""
    calls = 0
    real = os.write

    def write(fd: int, data: bytes) -> int:
        nonlocal calls
        calls += 1
        if calls <= good:
            return real(fd, data)
        if calls == good + 1:
            return real(fd, bytes(data[: max(len(data) // 2, 1)]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", write)


@pytest.mark.parametrize("durability", ["always", "batch", "never"])
def test_a_line_cut_by_a_full_disk_is_rolled_back(
    recorder: PluginSandbox,
    record_dir: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    durability: str,
) -> None:
    caplog.set_level(logging.ERROR, logger="monologue")
    fill_disk_after(monkeypatch, 2)  # the header and one more write go through whole
    with recorder.session("coder", narrator="none", durability=durability) as s:
        for number in range(300):
            s.text(f"event {number} " + "x" * 200)
            if durability != "always" and number in (0, 1):
                recorder_flush(s)

    path = recording_of(record_dir, s.id)
    data = path.read_bytes()
    assert data.endswith(b"\n")
    kept = list(read_recording(path, strict=True))
    assert kept and kept[0].data["text"].startswith("event 0 ")
    errors = [r.getMessage() for r in caplog.records if "monologue-recorder" in r.getMessage()]
    assert len(errors) == 1
    assert "the disk is full" in errors[0]
    assert "a partly written line of" in errors[0] and "was removed" in errors[0]


def recorder_flush(session: object) -> None:
    """Write what waits now (one write per call), as the batch window would."""
    session.drain()  # type: ignore[attr-defined]  # the event has reached the recorder
    file = session.state["recorder"]  # type: ignore[attr-defined]
    file.flush()


@pytest.mark.parametrize("durability", ["always", "batch"])
def test_a_real_file_size_limit_mid_line_leaves_whole_lines(
    tmp_path: Path, durability: str
) -> None:
    # The kernel's file size limit behaves like a full disk: the write that crosses it is
    # cut short, the next one fails (EFBIG). No injection: a real process, a real file.
    def limit_file_size() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))

    record_dir = tmp_path / "sessions"
    agent = subprocess.run(
        [
            sys.executable,
            str(HERE / "recorder_agent_process.py"),
            str(record_dir),
            "2000",
            *("--session-id", "limited", "--durability", durability),
        ],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        preexec_fn=limit_file_size,
        timeout=60,
    )
    assert agent.returncode == 0, agent.stderr
    path = recording_of(record_dir, "limited")
    data = path.read_bytes()
    assert 10_000 < len(data) <= 20_000
    assert data.endswith(b"\n")
    kept = list(read_recording(path, strict=True))
    assert [event.data["seq"] for event in kept] == list(range(len(kept)))
    assert "File too large" in agent.stderr
    assert "was removed" in agent.stderr
