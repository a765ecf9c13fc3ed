"""The template narrator tells the digest of folded events from its counts, nothing more."""

from __future__ import annotations

from pytest_monologue import PluginSandbox

from monologue.events import FOLDED_TYPE, Event, EventsFoldedData


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


def narrate_as(monologue_plugins: PluginSandbox, events: list[Event], preset: str) -> str:
    import monologue_template

    monologue_plugins.load("template")
    with monologue_plugins.session("coder", narrator="template", preset=preset) as session:
        return monologue_template.narrate(session, events, [], "buffer")


def folded(events: list[Event]) -> Event:
    from monologue.digest import folded_digest

    return folded_digest(events)


def call(tool: str, **tool_input: str) -> Event:
    return Event(
        type="tool_call", data={"tool_name": tool, "tool_use_id": "t", "input": tool_input}
    )


def test_a_digest_names_its_edits_and_commits_first(monologue_plugins: PluginSandbox) -> None:
    events = [
        *[call("Read", file_path=f"lib/m{n}.ex") for n in range(4)],
        call("Edit", file_path="lib/parser.ex", old_string="a", new_string="b"),
        call("Bash", command="git commit -m 'Parse dates'"),
    ]
    text = narrate(monologue_plugins, [folded(events)])
    assert text == (
        "Earlier, I also edited lib/parser.ex and ran `git commit -m 'Parse dates'`, in 6 tool "
        "calls (4 Read, 1 Bash, 1 Edit) on 5 files, running 1 distinct command."
    )
    terse = narrate_as(monologue_plugins, [folded(events)], "terse")
    assert terse == "Earlier, I edited parser.ex."


def test_a_digest_with_errors_claims_no_edit_succeeded(monologue_plugins: PluginSandbox) -> None:
    folded_edit = digest(count=2, tools={"Edit": 1}, edited=["a.py"], edited_total=1, errors=1)
    text = narrate(monologue_plugins, [folded_edit])
    assert text.startswith("Earlier, I also worked on a.py, in 1 tool call")
    assert "edited" not in text and text.endswith("with 1 error.")


def test_a_digest_of_reads_names_the_files_and_counts_the_rest(
    monologue_plugins: PluginSandbox,
) -> None:
    # What a live session of six Reads under a small buffer folds (plugins/web's browser
    # test): the last file read must be named, never "I read a file".
    reads = [call("Read", file_path=f"src/config_{n}.py") for n in range(6)]
    text = narrate(monologue_plugins, [folded(reads)])
    assert text == (
        "Earlier, I also read src/config_0.py, src/config_1.py, src/config_2.py and 3 other files."
    )
    terse = narrate_as(monologue_plugins, [folded(reads)], "terse")
    assert terse == "Earlier, I read config_5.py."


def test_terse_keeps_ten_words_and_one_subject(monologue_plugins: PluginSandbox) -> None:
    digest_event = folded([call("Edit", file_path="lib/parser.ex")])
    named_rest = call("Bash", command="mix compile")
    # The rest names a subject: that line alone, as terse says only the latest thing.
    text = narrate_as(monologue_plugins, [digest_event, named_rest], "terse")
    assert "parser.ex" not in text and "mix compile" in text, text
    assert len(text.split()) <= 10
