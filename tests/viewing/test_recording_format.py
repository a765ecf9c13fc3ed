"""The public ``monologue.recording`` module on its own: lines written and read back, the
``record`` setting, any session file opened, and a live file tailed."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_monologue import PluginSandbox

from monologue import hookimpl
from monologue.errors import ConfigError, RecordingError, UnknownFormat
from monologue.events import Event
from monologue.lines import MAX_LINE_BYTES
from monologue.recording import (
    OWN_FORMAT,
    LineTail,
    event_line,
    header_line,
    open_session,
    read_header,
    read_recording,
    record_setting,
    recording_path,
)
from monologue.settings import load_config


def written(path: Path, sandbox: PluginSandbox, events: list[Event]) -> Path:
    """A recording of ``events`` made with the writer-side helpers alone."""
    session = sandbox.session("coder", meta={"ticket": "T-1"})
    lines = [header_line(session), *(event_line(event) for event in events)]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_lines_written_read_back_as_the_same_events_with_secrets_redacted(
    monologue_plugins: PluginSandbox, tmp_path: Path
) -> None:
    plain = Event(type="text", agent="coder", data={"text": "hello"})
    data = {"tool_name": "Bash", "tool_use_id": "t1", "input": {"api_key": "abc123abc123"}}
    secret = Event(type="tool_call", agent="coder", data=data)
    path = written(tmp_path / "s.jsonl", monologue_plugins, [plain, secret])

    first, second = read_recording(path)
    assert first == plain
    assert second.data["input"] == {"api_key": "[REDACTED]"}
    header = read_header(path)
    assert (header.agent, header.meta) == ("coder", {"ticket": "T-1"})


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, None), (True, True), ("yes", True), ("off", False), (" FALSE ", False)],
)
def test_the_record_setting(value: object, expected: bool | None) -> None:
    config = load_config({} if value is None else {"record": value})
    assert record_setting(config) is expected
    assert recording_path(config, "S1").name == "S1.jsonl"


def test_a_bad_record_setting_is_named() -> None:
    with pytest.raises(ConfigError, match=r"record = 'maybe' \(from session\(\) arguments\): "):
        record_setting(load_config({"record": "maybe"}))


def test_open_session_reads_recordings_itself_and_asks_readers_for_the_rest(
    monologue_plugins: PluginSandbox, tmp_path: Path
) -> None:
    class Notes:
        @hookimpl
        def load_session(self, path: Path) -> list[Event] | None:
            """plain-text notes"""
            if path.suffix != ".txt":
                return None
            return [Event(type="text", data={"text": path.read_text()})]

    own = written(tmp_path / "s.jsonl", monologue_plugins, [])
    assert open_session(own)[1] == OWN_FORMAT
    notes = tmp_path / "n.txt"
    notes.write_text("hi")
    with pytest.raises(UnknownFormat):
        open_session(notes)
    monologue_plugins.register(Notes(), "notes")
    events, reader = open_session(notes)
    assert reader == "notes" and [e.data["text"] for e in events] == ["hi"]


def test_a_tail_gives_complete_lines_as_they_are_appended(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    path.write_bytes(b"one\ntw")
    with LineTail(path) as tail:
        assert tail.read() == [(1, b"one\n")]
        assert tail.read() == [] and tail.partial == b"tw"
        with path.open("ab") as stream:
            stream.write(b"o\nthree\n")
        assert tail.read() == [(2, b"two\n"), (3, b"three\n")]
        path.write_bytes(b"")
        with pytest.raises(RecordingError, match="the file shrank while being watched"):
            tail.read()


def test_a_tail_refuses_a_line_past_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    path.write_bytes(b"x" * (MAX_LINE_BYTES + 1))
    with LineTail(path) as tail:
        problems = []
        for _ in range(MAX_LINE_BYTES // (1 << 16) + 2):  # one chunk a read
            try:
                assert tail.read() == []
            except RecordingError as exc:
                problems.append(str(exc))
                break
    assert problems == [f"{path}:1: line is longer than the 8 MiB limit; refusing to read it"]
