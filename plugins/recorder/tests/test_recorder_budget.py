"""One size budget per event: however its bulk is spread, an event's line stays within
``record_max_event_bytes`` (default 1 MiB), says what was cut, and stays readable."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from conftest import recording_of
from pytest_monologue import PluginSandbox

from monologue.lines import DEFAULT_MAX_EVENT_BYTES
from monologue.recording import TRUNCATED_KEY, read_recording


def recorded_lines(record_dir: Path, session_id: str) -> list[bytes]:
    return recording_of(record_dir, session_id).read_bytes().splitlines()


def test_many_long_strings_share_one_budget_instead_of_making_a_12_mb_line(
    recorder: PluginSandbox, record_dir: Path
) -> None:
    # 200 strings of 60 KB: each under any per-string cut, 12 MB together.
    files = {f"file{n}.py": f"{n:03d}" + "x" * 60_000 for n in range(200)}
    with recorder.session("coder", narrator="none") as s:
        s.emit("text", {"text": "many files", "files": files})
        s.text("after the big one")

    lines = recorded_lines(record_dir, s.id)
    assert max(len(line) for line in lines) <= DEFAULT_MAX_EVENT_BYTES
    big = json.loads(lines[1])["data"]
    note = big[TRUNCATED_KEY]
    assert note["strings_cut"] == 200
    assert note["original_bytes"] > 12_000_000
    assert note["max_bytes"] == DEFAULT_MAX_EVENT_BYTES
    # Cut evenly, keeping each string's head and saying how much went.
    assert all(text.startswith(f"{n:03d}xx") for n, text in enumerate(big["files"].values()))
    assert all("chars cut" in text for text in big["files"].values())
    assert big["text"] == "many files"
    events = list(read_recording(recording_of(record_dir, s.id), strict=True))
    assert [event.type for event in events] == ["text", "text", "completion"]


def test_the_budget_is_a_setting_and_counts_bytes_not_characters(
    recorder: PluginSandbox, record_dir: Path
) -> None:
    with recorder.session("coder", narrator="none", record_max_event_bytes="65536") as s:
        call = s.tool_call("Read", {"file_path": "greek.txt"})
        s.tool_result(call.data["tool_use_id"], "αβγδ" * 50_000)  # 2 bytes a character

    lines = recorded_lines(record_dir, s.id)
    assert max(len(line) for line in lines) <= 65536
    result = json.loads(lines[2])["data"]
    assert result[TRUNCATED_KEY]["strings_cut"] == 1
    assert result["output"].startswith("αβγδ")


def test_bulk_that_is_not_strings_is_dropped_and_named(
    recorder: PluginSandbox, record_dir: Path
) -> None:
    with recorder.session("coder", narrator="none") as s:
        s.emit("text", {"text": "numbers", "samples": list(range(400_000))})

    data = json.loads(recorded_lines(record_dir, s.id)[1])["data"]
    assert data["text"] == "numbers"
    assert "samples" not in data
    assert data[TRUNCATED_KEY]["dropped"] == ["samples"]


def test_small_events_are_untouched(recorder: PluginSandbox, record_dir: Path) -> None:
    with recorder.session("coder", narrator="none") as s:
        s.text("x" * 100_000)
    data = json.loads(recorded_lines(record_dir, s.id)[1])["data"]
    assert data == {"text": "x" * 100_000}


@pytest.mark.parametrize("value", ["lots", "12", "999999999"])
def test_a_bad_budget_is_warned_about_and_the_default_budget_applies(
    recorder: PluginSandbox,
    record_dir: Path,
    caplog: pytest.LogCaptureFixture,
    value: str,
) -> None:
    caplog.set_level(logging.WARNING, logger="monologue")
    with recorder.session("coder", narrator="none", record_max_event_bytes=value) as s:
        assert s.config.record_max_event_bytes == 1 << 20
        s.text("hello")
    assert s.closed
    assert recording_of(record_dir, s.id).exists()
    assert f"record_max_event_bytes = {value!r} (from session() arguments)" in caplog.text
