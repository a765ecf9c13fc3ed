"""Recording: the file's shape, its permissions, redaction, settings and durability policies."""

from __future__ import annotations

import json
import logging
import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from conftest import json_lines, recording_of, wait_for
from monologue_recorder import writer
from pytest_monologue import MockNarrator, PluginSandbox

from monologue import hookimpl
from monologue.recording import read_recording


def run_small_session(sandbox: PluginSandbox, **config: object) -> str:
    with sandbox.session("coder", task_id="T1", **config) as s:
        call = s.tool_call("Read", {"file_path": "client.py"})
        s.tool_result(call.data["tool_use_id"], "MAX_RETRIES = 3")
        s.text("The retry limit is hard-coded.")
    return s.id


def test_every_event_goes_to_its_session_file_after_a_header(
    recorder: PluginSandbox, record_dir: Path, mock_narrator: MockNarrator
) -> None:
    mock_narrator.queue("I'm reading client.py.")
    session_id = run_small_session(recorder)

    lines = json_lines(recording_of(record_dir, session_id))
    header, events = lines[0], lines[1:]
    assert header["monologue"] == 1
    assert header["session_id"] == session_id
    assert header["agent"] == "coder"
    assert header["task_id"] == "T1"
    types = [event["type"] for event in events]
    assert types[:4] == ["tool_call", "tool_result", "text", "completion"]
    assert "narrative" in types
    narrative = next(e for e in events if e["type"] == "narrative")
    assert narrative["visibility"] == "user"
    assert narrative["data"]["text"] == "I'm reading client.py."
    assert all(event["session_id"] == session_id for event in events)


def test_a_recording_reads_back_as_the_same_events(
    recorder: PluginSandbox, record_dir: Path
) -> None:
    seen = []

    class Collect:
        @hookimpl
        def on_event(self, event: object) -> None:
            seen.append(event)

    recorder.register(Collect(), "collect")
    session_id = run_small_session(recorder, narrator="none")

    path = recording_of(record_dir, session_id)
    assert list(read_recording(path)) == seen


def test_files_are_readable_by_the_owner_only(recorder: PluginSandbox, record_dir: Path) -> None:
    session_id = run_small_session(recorder, narrator="none")

    assert stat.S_IMODE(record_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(recording_of(record_dir, session_id).stat().st_mode) == 0o600


def test_every_folder_it_creates_is_owner_only_parents_included(
    recorder: PluginSandbox, tmp_path: Path
) -> None:
    deep = tmp_path / "data" / "monologue" / "sessions"
    with recorder.session("coder", narrator="none", record_dir=deep) as s:
        s.text("hello")
    for folder in (tmp_path / "data", tmp_path / "data" / "monologue", deep):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert stat.S_IMODE(recording_of(deep, s.id).stat().st_mode) == 0o600


def test_secrets_are_redacted_before_they_reach_the_disk(
    recorder: PluginSandbox, record_dir: Path
) -> None:
    with recorder.session("coder", narrator="none") as s:
        call = s.tool_call("Bash", {"command": "deploy", "api_key": "abc123abc123"})
        s.tool_result(
            call.data["tool_use_id"], "Authorization: Bearer sk-ant-api03-abcdefghijklmnop"
        )
        s.text("connecting to postgres://admin:hunter2@db.internal/app")

    text = recording_of(record_dir, s.id).read_text()
    for secret in ("abc123abc123", "sk-ant-api03-abcdefghijklmnop", "hunter2"):
        assert secret not in text
    call_line = json_lines(recording_of(record_dir, s.id))[1]
    assert call_line["data"]["input"] == {"command": "deploy", "api_key": "[REDACTED]"}


def test_values_json_cannot_hold_are_recorded_as_text(
    recorder: PluginSandbox, record_dir: Path
) -> None:
    class Opaque:
        def __str__(self) -> str:
            return "<opaque>"

    with recorder.session("coder", narrator="none") as s:
        s.tool_call(
            "Probe",
            {"thing": Opaque(), "broken": "half a surrogate \ud800", "password": "hunter2hunter2"},
        )

    data = json_lines(recording_of(record_dir, s.id))[1]["data"]
    assert data["input"]["thing"] == "<opaque>"
    assert data["input"]["broken"].startswith("half a surrogate")
    # Redacted too, though the pipeline could not serialize the event to look for it.
    assert data["input"]["password"] == "[REDACTED]"


def test_replays_are_not_recorded_unless_record_is_true(
    recorder: PluginSandbox, record_dir: Path
) -> None:
    with recorder.session("coder", narrator="none", meta={"replay_of": "x.jsonl"}) as skipped:
        skipped.text("again")
    with recorder.session(
        "coder", narrator="none", meta={"replay_of": "x.jsonl"}, record="true"
    ) as recorded:
        recorded.text("again")

    assert not recording_of(record_dir, skipped.id).exists()
    header = json_lines(recording_of(record_dir, recorded.id))[0]
    assert header["meta"] == {"replay_of": "x.jsonl"}


def test_record_false_turns_recording_off(recorder: PluginSandbox, record_dir: Path) -> None:
    session_id = run_small_session(recorder, narrator="none", record="off")
    assert not recording_of(record_dir, session_id).exists()


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("durability", "sometimes", "durability = 'sometimes'"),
        ("record", "maybe", "record = 'maybe'"),
    ],
)
def test_a_bad_setting_is_warned_about_by_name_and_the_agent_records_on_the_default(
    *,
    recorder: PluginSandbox,
    record_dir: Path,
    caplog: pytest.LogCaptureFixture,
    key: str,
    value: str,
    expected: str,
) -> None:
    with caplog.at_level(logging.WARNING, logger="monologue"):
        session_id = run_small_session(recorder, narrator="none", **{key: value})

    assert recording_of(record_dir, session_id).exists()  # live sessions record by default
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1
    assert f"{expected} (from session() arguments)" in warnings[0]
    assert "the session uses the default" in warnings[0]


@pytest.mark.parametrize(
    ("durability", "lines_after_each_event", "fsyncs"),
    [
        pytest.param("always", [2, 3, 4], 6, id="always: written and synced at once"),
        pytest.param("never", [1, 1, 1], 0, id="never: written at completion, never synced"),
    ],
)
def test_durability_always_and_never(
    *,
    recorder: PluginSandbox,
    record_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    durability: str,
    lines_after_each_event: list[int],
    fsyncs: int,
) -> None:
    synced = count_fsyncs(monkeypatch)
    seen = []
    with recorder.session("coder", narrator="none", durability=durability) as s:
        path = recording_of(record_dir, s.id)
        for number in range(3):
            s.text(f"event {number}")
            seen.append(len(path.read_text().splitlines()))
    assert seen == lines_after_each_event
    assert len(path.read_text().splitlines()) == 5  # header, 3 events, completion
    assert len(synced) == fsyncs


def test_durability_batch_writes_within_the_window_and_fsyncs_at_completion(
    recorder: PluginSandbox, record_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced = count_fsyncs(monkeypatch)
    with recorder.session("coder", narrator="none") as s:
        path = recording_of(record_dir, s.id)
        s.text("one")
        # Written once the pipeline has caught up (its queue empty), within the window.
        assert wait_for(lambda: len(path.read_text().splitlines()) == 2)
        for number in range(writer.BATCH_EVENTS):
            s.text(f"event {number}")
        s.drain(5)  # the events have reached the recorder
        # A full batch is written at once, without waiting for the window.
        assert len(path.read_text().splitlines()) >= 2 + writer.BATCH_EVENTS
        assert synced == []
    assert len(synced) == 1


def test_durability_batch_writes_when_the_pipeline_catches_up_not_at_the_window(
    recorder: PluginSandbox, record_dir: Path
) -> None:
    # The viewer shows what is written: a line waiting out the 200 ms window while the
    # pipeline idles would be 200 ms late on the page.
    with recorder.session("coder", narrator="none") as s:
        path = recording_of(record_dir, s.id)
        s.text("one")
        assert s.drain(5)  # idle callbacks run before drain returns
        lines = path.read_text().splitlines()
        assert len(lines) == 2, lines


def count_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record the descriptors fsync'ed (the real fsync still runs)."""
    calls: list[int] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return calls


def test_narratives_from_the_worker_thread_land_in_order(
    recorder: PluginSandbox, record_dir: Path, mock_narrator: MockNarrator
) -> None:
    with recorder.session("coder", min_buffer_size=2, max_buffer_size=2) as s:
        for number in range(20):
            call = s.tool_call("Read", {"file_path": f"f{number}.py"})
            s.tool_result(call.data["tool_use_id"], "ok")

    events = list(read_recording(recording_of(record_dir, s.id)))
    narratives = [e for e in events if e.type == "narrative"]
    assert narratives
    position = {event.id: index for index, event in enumerate(events)}
    for narrative in narratives:
        # A narrative is recorded after every event it covers.
        assert all(position[c] < position[narrative.id] for c in narrative.data["covers"])


def test_header_meta_is_redacted_and_made_json_safe(
    recorder: PluginSandbox, record_dir: Path
) -> None:
    with recorder.session(
        "coder", narrator="none", meta={"token": "abcdef123456", "where": Path("/tmp/x")}
    ) as s:
        s.text("hi")
    header = json.loads(recording_of(record_dir, s.id).read_text().splitlines()[0])
    assert header["meta"] == {"token": "[REDACTED]", "where": "/tmp/x"}


def test_monologue_config_lists_and_checks_the_recorder_settings(
    monologue_plugins: PluginSandbox, monologue_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monologue_plugins.load("recorder")
    monkeypatch.setenv("MONOLOGUE_DURABILITY", "always")
    shown = monologue_cli("config")
    assert shown.exit_code == 0, shown.output
    assert re.search(r"durability +always +recorder +env MONOLOGUE_DURABILITY", shown.output)
    assert re.search(r"record_max_event_bytes +1048576 +core +default", shown.output)
    monkeypatch.setenv("MONOLOGUE_DURABILITY", "sometimes")
    bad = monologue_cli("config")
    assert bad.exit_code == 2
    assert (
        "monologue config: durability = 'sometimes' (from env MONOLOGUE_DURABILITY): "
        "Input should be 'always', 'batch' or 'never'" in bad.output
    )
    assert "Traceback" not in bad.output


def test_results_named_on_the_pipeline_are_recorded_with_their_names(
    recorder: PluginSandbox, record_dir: Path
) -> None:
    # Sent back to back, most results reach the session before their call has been through
    # the pipeline: the pipeline names them, before it serializes the line the recorder
    # writes.
    with recorder.session("coder", narrator="none") as s:
        for n in range(200):
            call = s.tool_call("Read", {"file_path": f"f{n}.py"})
            s.tool_result(call.data["tool_use_id"], "ok")

    events = json_lines(recording_of(record_dir, s.id))[1:]
    results = [event for event in events if event["type"] == "tool_result"]
    assert len(results) == 200
    assert {result["data"]["tool_name"] for result in results} == {"Read"}
