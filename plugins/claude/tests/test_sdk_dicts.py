"""Dicts in the Claude Agent SDK's message shape (``{"type": "assistant", "message": ...}``),
yielded by a decorated generator, are narrated with or without their ids."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pytest_monologue import MockNarrator, PluginSandbox

from monologue import monologue
from monologue.events import Event

IDS = {"session_id": "s-1", "uuid": "u-1", "parent_tool_use_id": None}


def messages(with_ids: bool) -> list[dict[str, Any]]:
    ids = IDS if with_ids else {}
    call = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "a.py"}}
    answer = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "x = 1"}
    return [
        {"type": "system", "subtype": "init", "cwd": "/app", **ids},
        {"type": "assistant", "message": {"role": "assistant", "content": [call]}, **ids},
        {"type": "user", "message": {"role": "user", "content": [answer]}, **ids},
        {"type": "result", "subtype": "success", "is_error": False, "result": "Done.", **ids},
    ]


@pytest.mark.parametrize("with_ids", [True, False], ids=["with ids", "without ids"])
def test_a_decorated_generator_of_sdk_dicts_is_narrated(
    claude: PluginSandbox, mock_narrator: MockNarrator, with_ids: bool
) -> None:
    seen: list[Event] = []

    @monologue("agent")
    def run() -> Iterator[dict[str, Any]]:
        from monologue import current

        session = current()
        assert session is not None
        session.subscribe(seen.append)
        yield from messages(with_ids)

    assert list(run()) == messages(with_ids)
    narrated = [event for call in mock_narrator.calls for event in call.events]
    assert [e.type for e in narrated if e.type.startswith("tool")] == ["tool_call", "tool_result"]
    assert narrated[0].data["input"] == {"file_path": "a.py"}
    assert seen and seen[-1].data["reason"] == "final"


def test_a_dict_that_only_looks_typed_is_left_alone(claude: PluginSandbox) -> None:
    assert claude.hooks.adapt({"type": "assistant", "text": "no message"}) is None
    assert claude.hooks.adapt({"type": "user", "message": "not a dict"}) is None
    assert claude.hooks.adapt({"type": "result"}) is None
