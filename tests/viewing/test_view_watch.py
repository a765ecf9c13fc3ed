"""``monologue watch``: narrating a file while it grows, complete lines only, stopping cleanly."""

from __future__ import annotations

import queue
import re
import signal
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest
from pytest_monologue import MockNarrator, PluginSandbox
from viewing_support import narrated_subprocess

from monologue.events import Event, RecordingHeader
from monologue.lines import MAX_LINE_BYTES
from monologue.replay._watch import Watch

NARRATE_EACH = ("-c", "max_buffer_size=1", "-c", "min_buffer_size=1")


def header() -> bytes:
    line = RecordingHeader(session_id="S1", agent="coder", started_at=datetime.now().astimezone())
    return line.to_json().encode() + b"\n"


def read_call(path: str, number: int) -> list[bytes]:
    call = Event(
        type="tool_call",
        session_id="S1",
        agent="coder",
        data={"tool_name": "Read", "tool_use_id": f"t{number}", "input": {"file_path": path}},
    )
    result = Event(
        type="tool_result",
        session_id="S1",
        agent="coder",
        data={"tool_use_id": f"t{number}", "tool_name": "Read", "output": "ok"},
    )
    return [call.to_json().encode() + b"\n", result.to_json().encode() + b"\n"]


def completion() -> bytes:
    event = Event(type="completion", session_id="S1", agent="coder", data={"result": "done"})
    return event.to_json().encode() + b"\n"


class Shown:
    def __init__(self) -> None:
        self.events: list[Event] = []
        self.narratives: list[str] = []

    def event(self, event: Event) -> None:
        self.events.append(event)

    def narrative(self, narrative: Event, at: datetime) -> None:
        self.narratives.append(narrative.text)


class Agent:
    """Appends one chunk to the file each time the watcher sleeps, on a fake clock."""

    def __init__(self, path: Path, chunks: list[bytes]) -> None:
        self.path = path
        self.chunks = list(chunks)
        self.now = 0.0

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        if self.chunks:
            with self.path.open("ab") as stream:
                stream.write(self.chunks.pop(0))

    def clock(self) -> float:
        return self.now


def test_watch_narrates_complete_lines_and_stops_at_the_completion(
    recorder: PluginSandbox, mock_narrator: MockNarrator, tmp_path: Path
) -> None:
    path = tmp_path / "live.jsonl"
    path.write_bytes(header() + b"".join(read_call("early.py", 1)))
    late = b"".join(read_call("late.py", 2))
    agent = Agent(path, [late[:40], late[40:], completion(), b"".join(read_call("after.py", 3))])
    shown = Shown()

    summary = Watch(path, shown, sleep=agent.sleep, clock=agent.clock).run()

    paths = [e.data["input"]["file_path"] for e in shown.events if e.type == "tool_call"]
    assert paths == ["early.py", "late.py"]  # nothing after the completion
    assert summary.events == 5 and summary.problem is None
    assert summary.format == "monologue"
    assert shown.narratives == ["Narration 1 (5 events)."]
    assert mock_narrator.calls[0].events[-1].data["result"] == "done"


def test_watch_stops_after_idle_exit_and_leaves_a_partial_line_alone(
    recorder: PluginSandbox, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "live.jsonl"
    path.write_bytes(header() + read_call("early.py", 1)[0])
    agent = Agent(path, [b'{"type": "text", "da'])
    shown = Shown()

    summary = Watch(
        path,
        shown,
        idle_exit_s=1.0,
        sleep=agent.sleep,
        clock=agent.clock,
        config={"narrator": "none"},
    ).run()

    assert summary.events == 1 and summary.problem is None
    assert 1.0 <= agent.now < 2.0
    assert f"{path}:3: the last line has no newline yet; not read" in caplog.text


def test_watch_stops_at_its_timeout_even_while_lines_keep_coming(
    recorder: PluginSandbox, tmp_path: Path
) -> None:
    path = tmp_path / "live.jsonl"
    path.write_bytes(header())
    agent = Agent(path, [b"".join(read_call(f"f{n}.py", n)) for n in range(100)])

    summary = Watch(
        path,
        Shown(),
        timeout_s=2.0,
        sleep=agent.sleep,
        clock=agent.clock,
        config={"narrator": "none"},
    ).run()

    assert 2.0 <= agent.now < 2.5
    assert 0 < summary.events < 200


def test_a_line_growing_past_the_limit_is_refused(recorder: PluginSandbox, tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    path.write_bytes(header())
    agent = Agent(path, [b"x" * (MAX_LINE_BYTES // 2)] * 3)

    summary = Watch(path, Shown(), strict=True, sleep=agent.sleep, clock=agent.clock).run()

    assert summary.problem == f"{path}:2: line is longer than the 8 MiB limit; refusing to read it"


def test_a_file_that_shrinks_is_reported(recorder: PluginSandbox, tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    path.write_bytes(header() + b"".join(read_call("a.py", 1)))

    def truncate(seconds: float) -> None:
        path.write_bytes(b"")

    summary = Watch(path, Shown(), sleep=truncate, config={"narrator": "none"}).run()
    assert summary.problem == f"{path}: the file shrank while being watched"


def test_a_format_without_a_line_parser_cannot_be_watched(
    recorder: PluginSandbox, tmp_path: Path
) -> None:
    from monologue import hookimpl

    class ArrayReader:
        @hookimpl
        def load_session(self, path: Path) -> list[Event] | None:
            """JSON arrays of events"""
            return [] if path.suffix == ".json" else None

    recorder.register(ArrayReader(), "arrays")
    path = tmp_path / "events.json"
    path.write_text("[\n]\n")
    summary = Watch(path, Shown(), idle_exit_s=0).run()
    assert summary.problem is not None
    assert "plugin 'arrays'" in summary.problem and "no line parser" in summary.problem


# -- the real command, in its own process ---------------------------------------------------


def lines_of(stream: object) -> queue.Queue[str]:
    """The stream's lines, read on a thread, so a test can wait for one with a timeout."""
    found: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for line in stream:  # type: ignore[attr-defined]
            found.put(line)

    threading.Thread(target=pump, daemon=True).start()
    return found


def wait_line(lines: queue.Queue[str], needle: str, timeout: float = 20.0) -> str:
    seen = []
    try:
        while True:
            line = lines.get(timeout=timeout)
            seen.append(line)
            if needle in line:
                return line
    except queue.Empty:
        raise AssertionError(f"no line with {needle!r}; saw {seen}") from None


@pytest.fixture
def live_file(tmp_path: Path) -> Path:
    path = tmp_path / "live.jsonl"
    path.write_bytes(header() + b"".join(read_call("early.py", 1)))
    return path


def test_the_watch_command_narrates_lines_appended_after_it_started(live_file: Path) -> None:
    watch = narrated_subprocess("watch", str(live_file), "--idle-exit", "60", *NARRATE_EACH)
    out = lines_of(watch.stdout)
    try:
        assert "coder: I saw: tool_call Read file_path=early.py" in wait_line(out, "early.py")
        with live_file.open("ab") as stream:
            stream.write(b"".join(read_call("late.py", 2)))
        assert "coder: I saw: tool_call Read file_path=late.py" in wait_line(out, "late.py")
        with live_file.open("ab") as stream:
            stream.write(completion())
        assert watch.wait(timeout=30) == 0
    finally:
        watch.kill()
    assert watch.stderr is not None
    assert "5 events, 2 tool calls" in watch.stderr.read()


def test_the_watch_command_stops_cleanly_on_ctrl_c(live_file: Path) -> None:
    watch = narrated_subprocess("watch", str(live_file), *NARRATE_EACH)
    out = lines_of(watch.stdout)
    try:
        wait_line(out, "early.py")
        watch.send_signal(signal.SIGINT)
        assert watch.wait(timeout=30) == 0
    finally:
        watch.kill()
    assert watch.stderr is not None
    errors = watch.stderr.read()
    assert "Traceback" not in errors
    assert re.search(r"\d events?, 1 tool call, \d narratives?", errors)  # a clean stop


def test_the_watch_command_exits_when_the_file_stays_idle(live_file: Path) -> None:
    watch = narrated_subprocess("watch", "--json", str(live_file), "--idle-exit", "0.5")
    try:
        assert watch.wait(timeout=30) == 0
    finally:
        watch.kill()
    assert watch.stdout is not None
    assert '"kind":"summary"' in watch.stdout.read()


def test_a_line_written_is_read_at_once_not_at_the_next_poll(live_file: Path) -> None:
    # Checks come only every 60 s: a line read within seconds was announced by the file
    # system (watchfiles), not found by polling.
    watch = narrated_subprocess("watch", str(live_file), "--poll", "60", *NARRATE_EACH)
    out = lines_of(watch.stdout)
    try:
        wait_line(out, "early.py")
        written = time.monotonic()
        with live_file.open("ab") as stream:
            stream.write(b"".join(read_call("late.py", 2)))
        wait_line(out, "late.py", timeout=20)
        assert time.monotonic() - written < 20
        with live_file.open("ab") as stream:
            stream.write(completion())
        assert watch.wait(timeout=30) == 0
    finally:
        watch.kill()


def test_a_line_written_just_after_the_first_read_to_the_end_is_not_left_for_the_poll(
    recorder: PluginSandbox, live_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The agent writes in the instant between the watch's first read to the end of the file
    # and its first wait: a watcher started only then would miss the change and sleep a
    # whole check interval (5 s here) before reading it.
    from monologue.recording import LineTail

    read = LineTail.read
    wrote: list[float] = []

    def read_then_write(tail: LineTail) -> list[tuple[int, bytes]]:
        lines = read(tail)
        if not lines and not wrote:
            with live_file.open("ab") as stream:
                stream.write(b"".join(read_call("late.py", 2)) + completion())
            wrote.append(time.monotonic())
        return lines

    monkeypatch.setattr(LineTail, "read", read_then_write)
    shown = Shown()
    summary = Watch(live_file, shown, poll_s=5.0, config={"narrator": "none"}).run()

    assert summary.problem is None and summary.events == 5
    assert [e.data["input"]["file_path"] for e in shown.events if e.type == "tool_call"] == [
        "early.py",
        "late.py",
    ]
    assert time.monotonic() - wrote[0] < 2.5  # a change announced, not found at the next check
