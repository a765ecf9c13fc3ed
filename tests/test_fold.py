"""The digest of folded events: what it keeps, its bounds, and what a narrative covers."""

from __future__ import annotations

import pytest

from monologue import Event
from monologue.digest import _fold
from monologue.digest._fold import Fold, covered
from monologue.events import FOLDED_TYPE


def call(tool: str, use_id: str, **tool_input: str) -> Event:
    return Event(
        type="tool_call",
        session_id="S",
        agent="coder",
        data={"tool_name": tool, "tool_use_id": use_id, "input": tool_input},
    )


def result(use_id: str, output: object = "ok", is_error: bool = False) -> Event:
    return Event(
        type="tool_result",
        session_id="S",
        agent="coder",
        data={"tool_use_id": use_id, "output": output, "is_error": is_error},
    )


def work() -> list[Event]:
    return [
        call("Read", "1", file_path="src/a.py"),
        result("1"),
        call("Bash", "2", command="pytest   -q\ntests/"),
        result("2", [{"type": "text", "text": "2 failed\n  in 0.1s"}], is_error=True),
        call("Edit", "3", file_path="src/a.py"),
        result("3"),
        call("Bash", "4", command="pytest -q tests/"),
        Event(type="text", data={"text": "Fixed."}),
    ]


def test_a_fold_counts_tools_names_files_and_commands_and_keeps_the_ids() -> None:
    events = work()
    fold = Fold()
    for event in events:
        fold.add(event)
    assert len(fold) == 8
    event = fold.as_event()
    data = event.data
    assert (event.type, event.session_id, event.agent) == (FOLDED_TYPE, "S", "coder")
    assert data["ids"] == [e.id for e in events]
    assert (data["first_id"], data["last_id"]) == (events[0].id, events[-1].id)
    assert data["types"] == {"tool_call": 4, "tool_result": 3, "text": 1}
    assert data["tools"] == {"Read": 1, "Bash": 2, "Edit": 1}
    assert (data["files"], data["files_total"]) == (["src/a.py"], 1)
    assert data["commands"] == ["pytest -q tests/"]  # whitespace collapsed: one command
    assert (data["edited"], data["edited_total"], data["last_edited"]) == (
        ["src/a.py"],
        1,
        "src/a.py",
    )
    assert (data["commits"], data["commits_total"], data["last_commit"]) == ([], 0, "")
    assert (data["errors"], data["error_samples"]) == (1, ["2 failed in 0.1s"])
    assert data["text"] == (
        "8 earlier event(s) folded while narration was behind; tool calls: 2 Bash, 1 Edit, "
        "1 Read; files: src/a.py; commands: pytest -q tests/; edited: src/a.py; "
        "1 error(s): 2 failed in 0.1s"
    )
    assert covered([event, events[0]]) == ([*data["ids"], events[0].id], None)


def test_a_fold_names_the_files_changed_and_the_commits_and_pushes_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_fold, "NAME_LIMIT", 2)
    monkeypatch.setattr(_fold, "TRACK_LIMIT", 3)
    older, newer = Fold(), Fold()
    for n, path in enumerate(["lib/a.ex", "lib/b.ex", "lib/a.ex"]):
        older.add(call("Edit", f"e{n}", file_path=path))
    older.add(call("Read", "r1", file_path="lib/c.ex"))
    older.add(call("str_replace_editor", "v1", command="view", path="lib/d.ex"))
    older.add(call("str_replace_editor", "s1", command="str_replace", path="lib/e.ex"))
    older.add(call("Bash", "c1", command="git commit -m 'Parse dates'"))
    older.add(call("Bash", "c2", command="git log --oneline"))
    newer.add(call("Bash", "c3", command="git -C lib push origin main"))
    newer.add(call("Bash", "c4", command="git commit -m 'Parse dates'"))
    newer.add(call("Write", "w1", file_path="lib/f.ex"))
    newer.add(call("NotebookEdit", "n1", notebook_path="nb.ipynb"))
    data = older.then(newer).as_event().data
    # Distinct edited files, first NAME_LIMIT named; past TRACK_LIMIT the total is a floor.
    assert (data["edited"], data["edited_total"]) == (["lib/a.ex", "lib/b.ex"], 3)
    assert data["edited_at_least"] is True
    assert older.distinct("edited") == ["lib/a.ex", "lib/b.ex", "lib/e.ex"]
    # Every commit or push, repeats too, in order; reads and other git commands are not.
    assert data["commits"] == ["git commit -m 'Parse dates'", "git -C lib push origin main"]
    assert data["commits_total"] == 3
    last = (data["last_file"], data["last_edited"], data["last_commit"])
    assert last == ("nb.ipynb", "nb.ipynb", "git commit -m 'Parse dates'")


def test_past_the_id_limit_the_narrative_covers_the_range(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_fold, "ID_LIMIT", 3)
    events = work()
    fold = Fold()
    for event in events:
        fold.add(event)
    data = fold.as_event().data
    assert (data["count"], data["ids"], data["ids_complete"]) == (8, [], False)
    later = Event(type="text", data={"text": "next"})
    assert covered([fold.as_event(), later]) == ([later.id], [events[0].id, events[-1].id])


def test_names_are_bounded_and_the_totals_say_when_they_are_a_floor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_fold, "TRACK_LIMIT", 30)
    fold = Fold()
    for n in range(50):
        fold.add(call("Read", str(n), file_path=f"f{n}.py"))
        fold.add(result(str(n), "no such file", is_error=True))
    data = fold.as_event().data
    assert len(data["files"]) == _fold.NAME_LIMIT
    assert (data["files_total"], data["files_at_least"]) == (30, True)
    assert (data["errors"], len(data["error_samples"])) == (50, _fold.ERROR_LIMIT)
    assert "files: f0.py, f1.py" in data["text"]
    assert "and at least 10 more" in data["text"]


def test_distinct_tools_beyond_the_limit_count_as_other() -> None:
    fold = Fold()
    for n in range(_fold.KIND_LIMIT + 5):
        fold.add(call(f"tool{n}", str(n)))
    tools = fold.as_event().data["tools"]
    assert len(tools) == _fold.KIND_LIMIT + 1
    assert tools["other"] == 5


def test_quoted_names_are_redacted() -> None:
    fold = Fold()
    secret = "sk-ant-api03-" + "x" * 40
    fold.add(call("Bash", "1", command=f"ANTHROPIC_API_KEY={secret} ./run"))
    data = fold.as_event().data
    assert secret not in data["commands"][0]
    assert secret not in data["text"]


def test_a_fold_followed_by_a_newer_one_keeps_order_ids_and_totals() -> None:
    first, second = work()[:4], work()[4:]
    older, newer = Fold(), Fold()
    for event in first:
        older.add(event)
    for event in second:
        newer.add(event)
    assert older.then(newer) is older
    data = older.as_event().data
    assert data["ids"] == [e.id for e in first + second]
    assert (data["first_id"], data["last_id"]) == (first[0].id, second[-1].id)
    assert data["tools"] == {"Read": 1, "Bash": 2, "Edit": 1}
    assert data["commands"] == ["pytest -q tests/"]
    assert Fold().then(older) is older
    assert older.then(Fold()) is older


def test_the_folds_own_fields_are_the_payloads_fields() -> None:
    # The fold keeps EventsFoldedData's fields as plain attributes (cheap to update per
    # event); a field added to one and not the other would be lost or left at its default.
    from dataclasses import fields

    from monologue.events import EventsFoldedData

    kept = {f.name for f in fields(Fold().data)}
    assert kept == set(EventsFoldedData.model_fields) - {"text"}
    fold = Fold()
    fold.add(call("Bash", "t1", command="make"))
    assert set(fold.as_event().data) == set(EventsFoldedData.model_fields)
