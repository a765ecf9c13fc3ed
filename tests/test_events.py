from __future__ import annotations

import json
import threading
from datetime import UTC, datetime

import pytest

from monologue import Event, RecordingHeader
from monologue.errors import EventValidationError
from monologue.events import FORMAT_VERSION, KNOWN_TYPES
from monologue.events._ids import id_timestamp_ms, new_id


def test_known_event_round_trips_through_one_json_line():
    event = Event(
        type="tool_call",
        session_id="s1",
        agent="coder",
        task_id="T1",
        data={"tool_name": "Read", "tool_use_id": "t1", "input": {"path": "README.md"}},
    )
    line = event.to_json()
    assert "\n" not in line
    again = Event.from_json(line)
    assert again == event
    assert again.ts.tzinfo is not None


def test_payload_defaults_are_filled_in():
    event = Event(type="tool_result", data={"tool_use_id": "t1"})
    assert event.data == {"tool_use_id": "t1", "tool_name": None, "output": "", "is_error": False}


def test_unknown_type_round_trips_unchanged():
    raw = {
        "id": new_id(),
        "ts": "2026-01-02T03:04:05.123456Z",
        "session_id": "s",
        "agent": "a",
        "task_id": None,
        "type": "plugin.custom",
        "visibility": "system",
        "data": {"anything": [1, {"nested": True}], "tool_name": 5},
        "extra_envelope_key": "kept",
    }
    event = Event.from_json(json.dumps(raw))
    assert json.loads(event.to_json()) == raw


def test_every_core_type_has_a_payload_model():
    assert {
        "tool_call",
        "tool_result",
        "text",
        "thinking",
        "completion",
        "error",
        "narrative",
        "narration_suppressed",
        "user_message",
        "hint",
        "events_folded",
    } == set(KNOWN_TYPES)


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('{"type": "tool_call", "data": {"tool_use_id": "x"}}', "data.tool_name"),
        (
            '{"type": "tool_result", "data": {"tool_use_id": "x", "is_error": "maybe"}}',
            "data.is_error",
        ),
        ('{"type": 5}', "type"),
        ('{"data": {}}', "type"),
        ('{"type": "text", "ts": "2020-01-01T00:00:00", "data": {"text": "x"}}', "ts"),
        ('{"type": "text", "visibility": "everyone", "data": {"text": "x"}}', "visibility"),
        (
            '{"type": "narrative", "data": {"text": "x", "narrator": "t", "reason": "buffer", '
            '"usage": {"input_tokens": "lots"}}}',
            "data.usage.input_tokens",
        ),
    ],
)
def test_invalid_input_names_the_field(line, field):
    with pytest.raises(EventValidationError) as info:
        Event.from_json(line)
    assert info.value.field == field
    assert str(info.value).startswith(f"{field}: ")


def test_invalid_json_is_reported():
    with pytest.raises(EventValidationError, match="Invalid JSON"):
        Event.from_json("{not json")


def test_only_narratives_may_be_user_visible():
    with pytest.raises(ValueError, match="only narrative events may be 'user'"):
        Event(type="text", visibility="user", data={"text": "hi"})
    narrative = Event(
        type="narrative",
        visibility="user",
        data={"text": "I'm done.", "narrator": "t", "reason": "final"},
    )
    assert str(narrative) == "I'm done."


def test_str_summarises_an_event_on_one_line():
    event = Event(
        type="tool_call",
        data={"tool_name": "Bash", "tool_use_id": "1", "input": {"command": "pytest -q\n  tests"}},
    )
    assert str(event) == "[tool_call] Bash command=pytest -q tests"


def test_ids_are_unique_and_sorted_by_creation_time_across_threads():
    made: list[list[str]] = [[] for _ in range(4)]

    def make(bucket: list[str]) -> None:
        bucket.extend(new_id() for _ in range(5000))

    threads = [threading.Thread(target=make, args=(b,)) for b in made]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    everything = [i for bucket in made for i in bucket]
    assert len(set(everything)) == len(everything)
    for bucket in made:  # each thread's ids come out in the order they were made
        assert bucket == sorted(bucket)
    now_ms = datetime.now(UTC).timestamp() * 1000
    assert abs(id_timestamp_ms(everything[0]) - now_ms) < 60_000


def test_id_timestamp_rejects_foreign_ids():
    with pytest.raises(ValueError, match="not a monologue id"):
        id_timestamp_ms("abc")


def test_recording_header_round_trip_and_errors():
    header = RecordingHeader(session_id="s", agent="a", started_at=datetime.now(UTC), meta={"k": 1})
    again = RecordingHeader.from_json(header.to_json())
    assert again == header
    assert json.loads(header.to_json())["monologue"] == FORMAT_VERSION
    with pytest.raises(EventValidationError, match="recording header: agent"):
        RecordingHeader.from_json(
            '{"monologue": 1, "session_id": "s", "started_at": "2026-01-01T00:00:00Z"}'
        )


def test_payload_property_gives_the_typed_model():
    event = Event(type="hint", data={"name": "user_waiting"})
    assert event.payload is not None
    assert event.payload.name == "user_waiting"  # type: ignore[attr-defined]
    assert Event(type="custom", data={}).payload is None


def test_trusted_events_equal_validated_ones_and_round_trip():
    event = Event.trusted(
        "tool_result",
        {"tool_use_id": "t1", "tool_name": "Bash", "output": "ok", "is_error": False},
        session_id="s",
        agent="coder",
    )
    again = Event.from_json(event.to_json())
    assert again == event
    assert again.model_dump() == event.model_dump()
    copied = event.model_copy(update={"agent": "other"})
    assert copied.agent == "other"
    assert event.agent == "coder"


def test_payloads_come_back_as_plain_dicts_nested_ones_included():
    narrative = Event(
        type="narrative",
        visibility="user",
        data={"text": "x", "narrator": "t", "reason": "final", "usage": {"input_tokens": 3}},
    )
    assert narrative.data["usage"] == {"input_tokens": 3, "output_tokens": 0}
    kept = Event(type="tool_call", data={"tool_name": "Read", "tool_use_id": "1", "parent": "p"})
    assert kept.data == {"tool_name": "Read", "tool_use_id": "1", "input": {}, "parent": "p"}


def test_trusted_events_share_their_fields_set_without_sharing_changes():
    first = Event.trusted("text", {"text": "a"}, session_id="s", agent="a")
    second = Event.trusted("text", {"text": "b"}, session_id="s", agent="a")
    assert first.model_fields_set == set(Event.model_fields)
    with pytest.raises(TypeError, match="cannot add attribute 'note' to an event"):
        first.note = "an extra attribute"
    assert "note" not in second.model_fields_set and "note" not in second.model_extra
    noted = first.model_copy(update={"note": "an extra attribute"})  # the way to add one
    assert json.loads(noted.model_dump_json())["note"] == "an extra attribute"
    assert second.model_extra == {} and first == Event.model_validate_json(first.to_json())
    first.agent = "b"  # fields can still be set, on this event alone
    assert first.agent == "b" and second.agent == "a"
    copy = second.model_copy(update={"agent": "c"})
    assert type(copy.model_fields_set) is set and copy.agent == "c"
    assert second.agent == "a"


def test_a_remembered_line_is_only_for_its_own_event_and_thread():
    from monologue.lines import remember_line, remembered_line

    event = Event.trusted("text", {"text": "a"}, session_id="s", agent="a")
    twin = Event.trusted("text", {"text": "a"}, session_id="s", agent="a")
    remember_line(event, event.model_dump_json())
    assert remembered_line(event) == event.model_dump_json()
    assert remembered_line(twin) is None
    elsewhere: list[str | None] = []
    thread = threading.Thread(target=lambda: elsewhere.append(remembered_line(event)))
    thread.start()
    thread.join()
    assert elsewhere == [None]
