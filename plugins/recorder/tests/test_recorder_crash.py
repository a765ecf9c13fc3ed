"""A recording process killed with SIGKILL leaves a readable file, missing at most the last
batch window; concurrent writers, threads or processes, never interleave partial lines."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

from conftest import HERE, Cli, recording_of, subprocess_env, wait_for
from monologue_recorder import writer
from pytest_monologue import PluginSandbox

from monologue.recording import read_recording

AGENT = str(HERE / "recorder_agent_process.py")


def start_agent(record_dir: Path, count: int, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, AGENT, str(record_dir), str(count), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=subprocess_env(),
    )


def wait_ready(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("ready "), process.stderr.read() if process.stderr else line
    return line.split()[1]


def line_count(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def kill(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL


def test_a_killed_idle_agent_loses_nothing_once_the_window_has_passed(
    run_cli: Cli, record_dir: Path
) -> None:
    # Not a multiple of the batch size: the last events wait for the background flusher.
    count = 2 * writer.BATCH_EVENTS + 22
    agent = start_agent(record_dir, count, "--then", "idle")
    try:
        session_id = wait_ready(agent)
        path = recording_of(record_dir, session_id)
        assert wait_for(lambda: line_count(path) == 1 + count)
    finally:
        kill(agent)

    result = run_cli("replay", "--json", "--narrator", "none", str(path))
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.splitlines()[-1])
    assert summary["events"] == count
    assert summary["problem"] is None


def test_an_agent_killed_mid_stream_leaves_whole_lines_and_no_gaps(
    run_cli: Cli, record_dir: Path
) -> None:
    agent = start_agent(record_dir, 1, "--then", "loop")
    try:
        path = recording_of(record_dir, wait_ready(agent))
        assert wait_for(lambda: line_count(path) > 20 * writer.BATCH_EVENTS)
    finally:
        kill(agent)

    # Only the last line may be cut: a SIGKILL can land during a write, which Linux copies
    # page by page (docs/formats.md); every line before it is whole, with no gap.
    lines = path.read_bytes().split(b"\n")
    whole, last = lines[:-1], lines[-1]
    for line in whole:
        json.loads(line)
    cut = bool(last) and not _parses(last)
    seqs = [event.data["seq"] for event in read_recording(path)]
    assert seqs == list(range(len(seqs)))
    assert len(seqs) >= len(whole) - 1  # every whole line but the header is an event
    result = run_cli("replay", "--json", "--narrator", "none", str(path))
    assert result.exit_code == 0
    summary = json.loads(result.stdout.splitlines()[-1])
    assert summary["events"] == len(seqs)
    assert summary["skipped_lines"] == int(cut)


def _parses(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def test_processes_sharing_a_session_file_never_interleave_partial_lines(
    record_dir: Path,
) -> None:
    count = 3000
    agents = [
        start_agent(record_dir, count, "--session-id", "SHARED", "--tag", f"p{n}") for n in range(3)
    ]
    for agent in agents:
        assert agent.wait(timeout=120) == 0, agent.stderr.read() if agent.stderr else ""

    path = recording_of(record_dir, "SHARED")
    lines = path.read_bytes().splitlines()
    parsed = [json.loads(line) for line in lines]  # every line whole
    assert sum(1 for obj in parsed if "monologue" in obj) == 3
    events = list(read_recording(path))
    for n in range(3):
        seqs = [e.data["seq"] for e in events if e.agent == f"p{n}" and e.type == "text"]
        assert seqs == list(range(count))


def test_threads_recording_their_own_sessions_each_get_a_whole_file(
    recorder: PluginSandbox, record_dir: Path
) -> None:
    ids: list[str] = []

    def agent(tag: str) -> None:
        with recorder.session(tag, narrator="none") as s:
            for number in range(500):
                s.emit("text", {"text": f"{tag} {number}", "seq": number})
        ids.append(s.id)

    threads = [threading.Thread(target=agent, args=(f"t{n}",)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(ids) == 6
    for session_id in ids:
        events = list(read_recording(recording_of(record_dir, session_id)))
        assert [e.data["seq"] for e in events if e.type == "text"] == list(range(500))
        assert events[-1].type == "completion"


def test_threads_sharing_one_session_lose_no_event(
    recorder: PluginSandbox, record_dir: Path
) -> None:
    with recorder.session("team", narrator="none") as s:

        def agent(tag: str) -> None:
            for number in range(400):
                s.emit("text", {"text": tag, "seq": number}, agent=tag)

        threads = [threading.Thread(target=agent, args=(f"t{n}",)) for n in range(5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    events = list(read_recording(recording_of(record_dir, s.id)))
    for n in range(5):
        assert [e.data["seq"] for e in events if e.agent == f"t{n}"] == list(range(400))


def test_lines_appended_while_the_flusher_writes_are_all_written_once_in_order(
    tmp_path: Path,
) -> None:
    # The pipeline thread appends with no lock while the flusher thread takes lines to write
    # under its lock: a window of a millisecond makes the two meet thousands of times.
    policy = writer.Policy("test", 10**9, 1 << 30, 0.001, fsync_each=False, fsync_at_close=False)
    path = tmp_path / "s.jsonl"
    file = writer.RecordingFile(path, policy)
    assert file.open('{"header": true}')
    count = 30_000
    switching = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between any two bytecodes, or nearly
    try:
        for n in range(count):
            file.append(json.dumps({"n": n}))
            if n % 1000 == 0:
                threading.Event().wait(0.002)  # the flusher writes between appends too
    finally:
        sys.setswitchinterval(switching)
    file.close()
    lines = path.read_text().splitlines()
    assert lines[0] == '{"header": true}'
    assert [json.loads(line)["n"] for line in lines[1:]] == list(range(count))
