"""Standard input and FIFOs are read as streams, by real processes; special files are
refused by name; nothing waits forever."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
from test_view_watch import NARRATE_EACH, completion, header, lines_of, read_call, wait_line
from viewing_support import Cli, narrated_subprocess


def recording_bytes(*paths: str) -> bytes:
    calls = [line for n, path in enumerate(paths) for line in read_call(path, n)]
    return header() + b"".join(calls) + completion()


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "session.fifo"
    os.mkfifo(path)
    return path


def test_watch_dash_narrates_standard_input_as_it_arrives() -> None:
    watch = narrated_subprocess("watch", "-", *NARRATE_EACH, stdin=subprocess.PIPE)
    assert watch.stdin is not None
    out = lines_of(watch.stdout)
    try:
        watch.stdin.write((header() + b"".join(read_call("early.py", 1))).decode())
        watch.stdin.flush()
        # Narrated while the writer is still attached: read live, not at the end.
        assert "coder: I saw: tool_call Read file_path=early.py" in wait_line(out, "early.py")
        watch.stdin.write(b"".join(read_call("late.py", 2)).decode())
        watch.stdin.close()  # the end of the stream ends the watch
        assert "late.py" in wait_line(out, "late.py")
        assert watch.wait(timeout=30) == 0
    finally:
        watch.kill()
    assert watch.stderr is not None
    assert "4 events, 2 tool calls" in watch.stderr.read()


def test_replay_dash_reads_standard_input_to_its_end() -> None:
    replay = narrated_subprocess("replay", "--json", "-", stdin=subprocess.PIPE)
    stdout, stderr = replay.communicate(recording_bytes("a.py", "b.py").decode(), timeout=60)
    assert replay.returncode == 0, stderr
    lines = [json.loads(line) for line in stdout.splitlines()]
    summary = lines[-1]
    assert summary["path"] == "<stdin>" and summary["format"] == "monologue"
    assert summary["events"] == 5 and summary["tool_calls"] == 2
    assert any("b.py" in line.get("text", "") for line in lines[:-1])


def test_replay_of_a_fifo_reads_what_its_writer_sends(fifo: Path) -> None:
    data = recording_bytes("one.py", "two.py", "three.py")

    def writer() -> None:
        with fifo.open("wb") as stream:  # blocks until the replay opens it for reading
            for start in range(0, len(data), 100):
                stream.write(data[start : start + 100])
                stream.flush()
                time.sleep(0.01)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    replay = narrated_subprocess("replay", "--json", str(fifo))
    stdout, stderr = replay.communicate(timeout=60)
    thread.join(timeout=10)
    assert replay.returncode == 0, stderr
    summary = json.loads(stdout.splitlines()[-1])
    assert summary["events"] == 7 and summary["path"] == str(fifo)
    assert "empty" not in stderr


def test_replay_of_a_fifo_without_a_writer_waits_visibly_and_stops_on_ctrl_c(
    fifo: Path,
) -> None:
    replay = narrated_subprocess("replay", str(fifo))
    assert replay.stderr is not None
    errors = lines_of(replay.stderr)
    try:
        assert "waiting for input on" in wait_line(errors, str(fifo))
        replay.send_signal(signal.SIGINT)
        assert replay.wait(timeout=30) == 130
    finally:
        replay.kill()


def test_replay_of_a_silent_stream_stops_at_its_timeout(fifo: Path) -> None:
    started = time.monotonic()
    replay = narrated_subprocess("replay", "--timeout", "1", str(fifo))
    _, stderr = replay.communicate(timeout=60)
    assert replay.returncode == 1
    assert f"monologue: {fifo}: the stream sent nothing, nothing to replay" in stderr
    assert time.monotonic() - started < 30


def test_watch_of_a_fifo_without_a_writer_exits_at_idle_exit(fifo: Path) -> None:
    watch = narrated_subprocess("watch", "--json", str(fifo), "--idle-exit", "2")
    stdout, _ = watch.communicate(timeout=60)
    assert watch.returncode == 0
    assert json.loads(stdout.splitlines()[-1])["events"] == 0


def test_watch_of_a_fifo_narrates_its_writer_and_ends_with_it(fifo: Path) -> None:
    watch = narrated_subprocess("watch", str(fifo), *NARRATE_EACH)
    out = lines_of(watch.stdout)
    try:
        with fifo.open("wb") as stream:
            stream.write(header() + b"".join(read_call("piped.py", 1)))
            stream.flush()
            assert "piped.py" in wait_line(out, "piped.py")
        assert watch.wait(timeout=30) == 0  # the writer closed: the stream ended
    finally:
        watch.kill()


@pytest.mark.parametrize("command", ["replay", "watch", "log"])
def test_a_character_device_is_refused_by_name(run_cli: Cli, command: str) -> None:
    result = run_cli(command, "/dev/zero")
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "monologue: /dev/zero: is a character device (like /dev/zero or a terminal), "
        "not a session file; refusing to read it"
    )


def test_a_socket_is_refused_by_name(run_cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "agent.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        result = run_cli("replay", str(path))
    assert result.exit_code == 1
    assert f"monologue: {path}: is a socket, not a session file" in result.stderr
