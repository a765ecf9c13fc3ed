"""Context slices, rolling summaries and their storage."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from gate_fixtures import CollectEvents
from monologue_gate import ControllerRunner, load_summary, persist_summary, rolling_summary
from monologue_gate.summaries import summary_ref
from pytest_monologue import MockNarrator, PluginSandbox

from monologue.events import Event

START = datetime(2025, 3, 1, 9, 0, 0, tzinfo=UTC)


def conversation(n: int) -> list[Event]:
    """``n`` events: tool call/result pairs on numbered files, an error now and then."""
    events: list[Event] = []
    for i in range(n):
        ts = START + timedelta(seconds=i)
        if i % 2 == 0:
            tool_input = {"file_path": f"f{i}.py"}
            call = {"tool_name": "Read", "tool_use_id": f"t{i}", "input": tool_input}
            events.append(Event(id=f"e{i:04d}", ts=ts, type="tool_call", data=call))
        else:
            failed = i % 10 == 9
            result = {"tool_use_id": f"t{i - 1}", "output": f"line {i}", "is_error": failed}
            events.append(Event(id=f"e{i:04d}", ts=ts, type="tool_result", data=result))
    return events


def event_lines(markdown: str) -> list[str]:
    inside = markdown.split("<events>\n", 1)[1].split("\n</events>", 1)[0]
    return inside.splitlines()


@pytest.mark.parametrize("n", [10, 30])
def test_up_to_30_events_are_all_shown_and_nothing_is_summarised(tmp_path: Path, n: int) -> None:
    runner = ControllerRunner(data_dir=tmp_path)
    markdown = runner.build_context_slice("conv-1", conversation(n))
    lines = event_lines(markdown)
    assert len(lines) == n
    assert lines[0].startswith("1. [09:00:00] called Read: file_path=f0.py")
    assert "### Summaries" in markdown
    assert f"Latest summary: none (all {n} events are shown above)." in markdown
    assert list(runner.recorded) == []
    assert not (tmp_path / "summaries").exists()


def test_100_events_show_the_newest_30_and_summarise_the_other_70(tmp_path: Path) -> None:
    events = conversation(100)
    runner = ControllerRunner(data_dir=tmp_path)
    markdown = runner.build_context_slice("conv-1", events)
    lines = event_lines(markdown)
    assert len(lines) == 30
    assert lines[0].startswith("71. [09:01:10] ")
    assert lines[-1].startswith("100. [09:01:39] ERROR from Read: line 99")
    assert "f68.py" not in "\n".join(lines)
    summary = markdown.split("### Summaries\n", 1)[1]
    ref = summary_ref(rolling_summary(events[:70]))
    assert f"Latest summary: {ref} (events 1 to 70)" in summary
    assert "70 earlier events, 09:00:00 to 09:01:09 UTC." in summary
    assert "Tools: Read x35." in summary
    assert "Errors: 7 (last: line 69)." in summary
    [refresh] = runner.recorded
    assert refresh.type == "summary_refresh"
    assert refresh.data == {"summary_ref": ref, "conversation_id": "conv-1", "covers": 70}
    stored = load_summary("conv-1", ref, tmp_path)
    assert (stored.covers, stored.first_event_id, stored.last_event_id) == (70, "e0000", "e0069")
    assert stored.text == rolling_summary(events[:70])


def test_an_unchanged_slice_adds_no_summary_refresh_and_a_changed_one_does(
    tmp_path: Path,
) -> None:
    events = conversation(100)
    runner = ControllerRunner(data_dir=tmp_path)
    first = runner.build_context_slice("conv-1", events)
    again = runner.build_context_slice("conv-1", events)
    assert again == first
    assert [event.type for event in runner.recorded] == ["summary_refresh"]
    runner.build_context_slice("conv-1", [*events, *conversation(101)[100:]])
    refs = [event.data["summary_ref"] for event in runner.recorded]
    assert len(refs) == 2
    assert refs[0] != refs[1]
    assert sorted(path.stem for path in (tmp_path / "summaries" / "conv-1").iterdir()) == sorted(
        refs
    )


def test_slices_and_refs_are_deterministic(tmp_path: Path) -> None:
    one = ControllerRunner(data_dir=tmp_path / "a").build_context_slice("c", conversation(64))
    two = ControllerRunner(data_dir=tmp_path / "b").build_context_slice("c", conversation(64))
    assert one == two
    first = (tmp_path / "a" / "summaries" / "c").iterdir()
    second = (tmp_path / "b" / "summaries" / "c").iterdir()
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]


def test_in_a_session_the_refresh_is_emitted_and_summaries_go_to_its_data_dir(
    gate: PluginSandbox, mock_narrator: MockNarrator, collect: CollectEvents, tmp_path: Path
) -> None:
    with gate.session("coder", data_dir=str(tmp_path), max_buffer_size=50) as s:
        runner = ControllerRunner(s)
        runner.build_context_slice(s.id, conversation(40))
        runner.build_context_slice(s.id, conversation(40))
    [refresh] = collect.of_type("summary_refresh")
    assert refresh.session_id == s.id
    ref = refresh.data["summary_ref"]
    assert (tmp_path / "summaries" / s.id / f"{ref}.json").is_file()


def test_the_data_dir_is_read_from_the_environment_when_used(
    monologue_plugins: PluginSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = ControllerRunner()
    monkeypatch.setenv("MONOLOGUE_DATA_DIR", str(tmp_path / "later"))
    runner.build_context_slice("conv-9", conversation(31))
    assert len(list((tmp_path / "later" / "summaries" / "conv-9").glob("sum-*.json"))) == 1


@pytest.mark.parametrize("bad", ["", "../escape", "a/b", ".hidden", "x" * 200])
def test_a_conversation_id_that_cannot_name_a_folder_is_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ValueError, match="cannot name a summary folder") as info:
        ControllerRunner(data_dir=tmp_path).build_context_slice(bad, conversation(31))
    assert repr(bad) in str(info.value)
    assert not (tmp_path / "summaries").exists()


def test_a_data_dir_that_is_a_file_fails_naming_the_path(tmp_path: Path) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("not a folder")
    with pytest.raises(OSError, match="data") as info:
        persist_summary("conv-1", "text", blocker)
    assert str(blocker) in str(info.value)


def test_persist_is_content_addressed(tmp_path: Path) -> None:
    ref = persist_summary("conv-1", "3 earlier events.", tmp_path)
    path = tmp_path / "summaries" / "conv-1" / f"{ref}.json"
    before = path.stat().st_mtime_ns
    assert persist_summary("conv-1", "3 earlier events.", tmp_path) == ref
    assert path.stat().st_mtime_ns == before
    assert ref == summary_ref("3 earlier events.")
    assert ref.startswith("sum-")
    assert len(ref) == 20
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp files left


def test_load_summary_names_the_file_and_the_problem(tmp_path: Path) -> None:
    ref = persist_summary("conv-1", "the text", tmp_path)
    path = tmp_path / "summaries" / "conv-1" / f"{ref}.json"
    with pytest.raises(ValueError, match="is not a ref"):
        load_summary("conv-1", "nope", tmp_path)
    with pytest.raises(LookupError, match=r"no stored summary sum-0000000000000000"):
        load_summary("conv-1", "sum-0000000000000000", tmp_path)
    stored = json.loads(path.read_text())
    path.write_text(json.dumps({**stored, "text": "altered"}))
    with pytest.raises(ValueError, match="was altered") as info:
        load_summary("conv-1", ref, tmp_path)
    assert str(path) in str(info.value)
    path.write_text("{broken")
    with pytest.raises(ValueError, match="not a stored summary"):
        load_summary("conv-1", ref, tmp_path)


def test_rolling_summary_counts_tools_files_errors_and_redacts() -> None:
    events = [
        Event(
            type="tool_call",
            data={"tool_name": "Bash", "tool_use_id": "1", "input": {"command": "pytest"}},
        ),
        Event(
            type="tool_call",
            data={"tool_name": "Edit", "tool_use_id": "2", "input": {"file_path": "src/a.py"}},
        ),
        Event(
            type="tool_call",
            data={"tool_name": "Bash", "tool_use_id": "3", "input": {"command": "ls"}},
        ),
        Event(type="error", data={"message": "token=hunter2hunter2 rejected"}),
        Event(type="text", data={"text": "First thought."}),
        Event(type="text", data={"text": "My key is sk-ant-abcdefghijklmnop, fixed."}),
    ]
    text = rolling_summary(events)
    assert "6 earlier events" in text
    assert "Tools: Bash x2, Edit x1." in text
    assert "Files touched: src/a.py." in text
    assert "Errors: 1 (last: token=[REDACTED] rejected)." in text
    assert "Said: First thought." in text
    assert "sk-ant-" not in text
    assert "hunter2" not in text
    assert rolling_summary([]) == ""


def test_rolling_summary_lists_a_bounded_number_of_files() -> None:
    events = [
        Event(
            type="tool_call",
            data={"tool_name": "Read", "tool_use_id": str(i), "input": {"path": f"f{i}.py"}},
        )
        for i in range(12)
    ]
    assert "f7.py (+4 more)." in rolling_summary(events)
    assert "f8.py" not in rolling_summary(events)
