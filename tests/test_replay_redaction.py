"""A replay redacts every event before the hooks see it, except those of a recording whose
header says its lines were redacted under the rules in effect: those were redacted when they
were written, and are not scanned again. A foreign trace, a recording made under other rules
(or by another program), a copy of a recorded event and an event built anew are redacted."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from pytest_monologue import PluginSandbox

from monologue import hookimpl
from monologue.events import Event
from monologue.pipeline._scrub import scrub
from monologue.recording import event_line, header_line, read_recording, redaction_rules
from monologue.replay._replay import Driver, replay

SECRET = "sk-ant-api03-" + "Q" * 24
"""An Anthropic key: what redaction replaces with ``[REDACTED]``."""


class Silent:
    def event(self, event: Event) -> None:
        pass

    def narrative(self, narrative: Event, at: datetime) -> None:
        pass


class Seen:
    """What the hooks were given: each tool result's output."""

    def __init__(self) -> None:
        self.outputs: list[str] = []

    @hookimpl
    def on_event(self, session: Any, event: Event) -> None:
        if event.type == "tool_result":
            self.outputs.append(event.data["output"])

    @hookimpl
    def load_session(self, path: Path) -> list[Event] | None:
        """a foreign trace: one failed tool call, its output holding a key"""
        if path.suffix != ".trace":
            return None
        return [Event(type="tool_result", data={"tool_use_id": "t1", "output": SECRET})]


def result_line(output: str, use_id: str = "t1") -> str:
    """A recorder's line for a tool result, written as it is (unredacted)."""
    data = {"tool_use_id": use_id, "tool_name": "Bash", "output": output, "is_error": False}
    return Event(type="tool_result", session_id="S1", agent="coder", data=data).to_json()


def recording(path: Path, sandbox: PluginSandbox, rules: str | None, lines: list[str]) -> Path:
    """A recording whose header names ``rules`` (``None``: names none), then ``lines``."""
    header = json.loads(header_line(sandbox.session("coder", session_id="S1")))
    assert header["redaction"] == redaction_rules()
    if rules is None:
        del header["redaction"]
    else:
        header["redaction"] = rules
    path.write_text("".join(f"{line}\n" for line in [json.dumps(header), *lines]))
    return path


def replayed(sandbox: PluginSandbox, path: Path) -> list[str]:
    seen = Seen()
    sandbox.register(seen, name="seen")
    summary = replay(Driver(path, Silent(), config={"narrator": "none"}))
    assert summary.problem is None
    return seen.outputs


def test_what_a_recorder_writes_is_redacted_once_and_read_back_as_redacted(
    monologue_plugins: PluginSandbox, tmp_path: Path
) -> None:
    session = monologue_plugins.session("coder", session_id="S1")
    data = {"tool_use_id": "t1", "tool_name": "Bash", "output": SECRET, "is_error": False}
    event = Event(type="tool_result", session_id="S1", agent="coder", data=data)
    path = tmp_path / "s.jsonl"
    path.write_text(f"{header_line(session)}\n{event_line(event)}\n")
    (read,) = read_recording(path)
    assert read.already_redacted and read.data["output"] == "[REDACTED]"
    assert replayed(monologue_plugins, path) == ["[REDACTED]"]


def test_a_recording_redacted_under_the_rules_in_effect_is_not_scanned_again(
    monologue_plugins: PluginSandbox, tmp_path: Path
) -> None:
    # A line no recorder would write (it redacts the key): the replay takes the header at its
    # word, so the key shows that nothing scanned the event again.
    path = recording(
        tmp_path / "s.jsonl", monologue_plugins, redaction_rules(), [result_line(SECRET)]
    )
    assert all(event.already_redacted for event in read_recording(path))
    assert replayed(monologue_plugins, path) == [SECRET]


@pytest.mark.parametrize("rules", [None, "0123456789abcdef"], ids=["no rules", "other rules"])
def test_a_recording_made_under_other_rules_is_redacted_again(
    monologue_plugins: PluginSandbox, tmp_path: Path, rules: str | None
) -> None:
    path = recording(tmp_path / "s.jsonl", monologue_plugins, rules, [result_line(SECRET)])
    assert not any(event.already_redacted for event in read_recording(path))
    assert replayed(monologue_plugins, path) == ["[REDACTED]"]


def test_after_a_second_header_under_other_rules_the_events_are_redacted(
    monologue_plugins: PluginSandbox, tmp_path: Path
) -> None:
    other = json.loads(header_line(monologue_plugins.session("coder", session_id="S1")))
    other["redaction"] = "0123456789abcdef"
    lines = [result_line(SECRET, "t1"), json.dumps(other), result_line(SECRET, "t2")]
    path = recording(tmp_path / "s.jsonl", monologue_plugins, redaction_rules(), lines)
    assert [event.already_redacted for event in read_recording(path)] == [True, False]
    assert replayed(monologue_plugins, path) == [SECRET, "[REDACTED]"]


def test_a_secret_in_a_foreign_trace_is_redacted(
    monologue_plugins: PluginSandbox, tmp_path: Path
) -> None:
    trace = tmp_path / "run.trace"
    trace.write_text("opaque")
    assert replayed(monologue_plugins, trace) == ["[REDACTED]"]


def test_a_copy_or_a_changed_recorded_event_is_redacted_again(
    monologue_plugins: PluginSandbox, tmp_path: Path
) -> None:
    path = recording(
        tmp_path / "s.jsonl", monologue_plugins, redaction_rules(), [result_line("ok")]
    )
    (event,) = read_recording(path)
    # Not even serialized: no line is made of it for a recorder (which would make its own).
    assert event.already_redacted and scrub((event,)) == [(event, None)]
    copy = event.model_copy(update={"data": {**event.data, "output": SECRET}})
    assert not copy.already_redacted
    ((clean, _),) = scrub((copy,))
    assert clean.data["output"] == "[REDACTED]"
    event.data = {**event.data, "output": SECRET}
    assert not event.already_redacted
    ((clean, _),) = scrub((event,))
    assert clean.data["output"] == "[REDACTED]"


def test_a_field_assigned_drops_the_mark_of_its_whole_reading_only(
    monologue_plugins: PluginSandbox, tmp_path: Path
) -> None:
    # The events of one reading share their fields set (the mark): one assignment unmarks
    # them all, which are then only redacted again; another reading keeps its own mark.
    lines = [result_line("ok", "t1"), result_line("fine", "t2")]
    path = recording(tmp_path / "s.jsonl", monologue_plugins, redaction_rules(), lines)
    first, second = read_recording(path)
    again = list(read_recording(path))
    first.data = {**first.data, "output": SECRET}
    assert not first.already_redacted and not second.already_redacted
    assert [clean.data["output"] for clean, _ in scrub((first, second))] == ["[REDACTED]", "fine"]
    assert all(event.already_redacted for event in again)
    with pytest.raises(TypeError, match="cannot add attribute 'note' to an event"):
        again[0].note = "an extra attribute"
