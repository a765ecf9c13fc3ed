"""The template narrator tells the digest of folded events from its counts, nothing more."""

from __future__ import annotations

from monologue.events import FOLDED_TYPE, Event, EventsFoldedData
from monologue.testing import PluginSandbox


def digest(**fields: object) -> Event:
    return Event(type=FOLDED_TYPE, data=EventsFoldedData.model_validate(fields).model_dump())


def narrate(monologue_plugins: PluginSandbox, events: list[Event]) -> str:
    import monologue_template

    monologue_plugins.load("template")
    with monologue_plugins.session("coder", narrator="template") as session:
        return monologue_template.narrate(session, events, [], "buffer")


def test_a_digest_is_told_from_its_counts_before_the_batch(
    monologue_plugins: PluginSandbox,
) -> None:
    folded = digest(
        count=80,
        tools={"Bash": 25, "Read": 10, "Edit": 5, "Grep": 1},
        files_total=12,
        commands_total=20,
        errors=2,
    )
    read = Event(
        type="tool_call",
        data={"tool_name": "Read", "tool_use_id": "t1", "input": {"file_path": "src/app.py"}},
    )
    text = narrate(monologue_plugins, [folded, read])
    assert text.startswith(
        "Earlier, I also made 41 tool calls (25 Bash, 10 Read, 5 Edit, ...) on 12 files, "
        "running 20 distinct commands, with 2 errors. "
    )
    assert "app.py" in text


def test_a_digest_alone_is_narrated_and_floors_are_said(
    monologue_plugins: PluginSandbox,
) -> None:
    folded = digest(count=3, tools={"Read": 600}, files_total=500, files_at_least=True)
    text = narrate(monologue_plugins, [folded])
    assert text == "Earlier, I also made 600 tool calls (600 Read) on at least 500 files."


def test_a_digest_without_tool_calls_claims_no_work(monologue_plugins: PluginSandbox) -> None:
    text = narrate(monologue_plugins, [digest(count=1, types={"text": 1})])
    assert text == "Earlier, 1 more event came in."
