"""Event types plugins register: validated once registered, silent when not narrated."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from monologue import Event, hookimpl
from monologue.errors import EventValidationError
from monologue.events import Payload, register_event_type


class ProgressData(Payload):
    percent: int


class Registers:
    def __init__(self, name: str, model: type[BaseModel], narrated: bool = True) -> None:
        self.name, self.model, self.narrated = name, model, narrated

    @hookimpl
    def register_event_types(self, register):
        register(self.name, self.model, narrated=self.narrated)


def test_a_registered_type_is_validated_and_an_unregistered_one_round_trips(monologue_plugins):
    raw = {"type": "test.progress", "data": {"percent": "lots"}}
    assert Event.from_dict(raw).data == {"percent": "lots"}  # nobody registered it yet
    monologue_plugins.register(Registers("test.progress", ProgressData), "progress")
    with monologue_plugins.session("coder", narrator="none") as s:
        with pytest.raises(EventValidationError, match=r"data\.percent"):
            s.emit("test.progress", {"percent": "lots"})
        assert s.emit("test.progress", {"percent": 40}).data == {"percent": 40}


def test_a_type_registered_as_not_narrated_never_reaches_the_narrator(
    monologue_plugins, mock_narrator, collect
):
    monologue_plugins.register(Registers("test.bookkeeping", ProgressData, False), "books")
    with monologue_plugins.session("coder") as s:
        s.emit("test.bookkeeping", {"percent": 1})
        s.text("working")
        s.drain()
        assert [event.type for event in s.pending] == ["text"]
    assert "test.bookkeeping" in collect.types()  # still seen and recorded
    assert [e.type for e in mock_narrator.calls[0].events] == ["text", "completion"]


def test_a_taken_name_is_refused_and_reported_against_the_second_plugin(monologue_plugins):
    class Other(Payload):
        other: str

    monologue_plugins.register(Registers("test.taken", ProgressData), "first")
    with monologue_plugins.session("coder", narrator="none"):
        pass
    monologue_plugins.register(Registers("test.taken", Other), "second")
    with monologue_plugins.session("coder", narrator="none") as s:
        s.emit("test.taken", {"percent": 3})  # still the first plugin's model
    assert monologue_plugins.hooks.errors[("second", "register_event_types")] == 1
    assert ("first", "register_event_types") not in monologue_plugins.hooks.errors


def test_register_event_type_names_the_owner_on_conflict_and_checks_the_model():
    class Mine(Payload):
        x: int

    register_event_type("test.owned", Mine, plugin="mine")
    register_event_type("test.owned", Mine, plugin="mine")  # the same model again: fine
    with pytest.raises(ValueError, match="already registered by 'mine'; 'yours' cannot"):
        register_event_type("test.owned", ProgressData, plugin="yours")
    with pytest.raises(TypeError, match="payload must be a pydantic model class"):
        register_event_type("test.bad", dict, plugin="yours")  # type: ignore[arg-type]
