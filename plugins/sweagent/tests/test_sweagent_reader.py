"""The project's own SWE-agent and mini-swe-agent fixtures, read into events."""

from __future__ import annotations

from pathlib import Path

import pytest
from monologue_sweagent import read_session
from pytest_monologue import PluginSandbox

from monologue.events import Event

FIXTURES = Path(__file__).parent / "fixtures"


def read(name: str) -> list[Event]:
    return list(read_session(FIXTURES / name))


def calls(events: list[Event]) -> list[tuple[str, str, dict[str, object], str]]:
    return [
        (e.data["tool_name"], e.data["tool_use_id"], e.data["input"], e.data["framework_tool"])
        for e in events
        if e.type == "tool_call"
    ]


def test_function_calling_keeps_the_models_ids_and_maps_the_commands() -> None:
    events = read("function_calling.traj")
    assert calls(events) == [
        ("Read", "call_open_1", {"file_path": "src/calc.py"}, "open"),
        ("Edit", "call_edit_2", {"file_path": "/repo/src/calc.py"}, "edit"),
        ("Bash", "call_bash_3", {"command": "python -m pytest tests/test_calc.py"}, "bash"),
    ]
    results = [e for e in events if e.type == "tool_result"]
    assert [r.data["tool_use_id"] for r in results] == ["call_open_1", "call_edit_2", "call_bash_3"]
    assert [r.data["is_error"] for r in results] == [False, False, True]
    assert events[0].type == "user_message"
    assert events[0].data["text"] == "Fix the syntax error in calc.py"
    assert events[-1].type == "completion"
    # "submitted" is SWE-agent's word: the run completed, its patch is the submission.
    assert (events[-1].data["ending"], events[-1].data["result"]) == ("completed", None)
    assert events[-1].data["submission"].startswith("diff --git")
    assert [e.data["text"] for e in events if e.type == "text"][-1] == "Done."


def test_text_actions_pair_by_position_and_skip_demonstrations() -> None:
    events = read("text_actions.traj")
    assert calls(events) == [
        ("Glob", "step-1", {"pattern": "parser.py"}, "find_file"),
        ("Read", "step-2", {"file_path": "lib/parser.py"}, "open"),
        ("Edit", "step-3", {"file_path": "/repo/lib/parser.py"}, "edit"),
        ("Grep", "step-4", {"pattern": "tokenize", "path": "lib"}, "search_dir"),
    ]
    assert events[0].data["text"] == "The parser drops its tokens."
    assert events[-1].data == {
        "result": "the run reached its cost limit",
        "is_error": True,
        "ending": "failed",
        "exit_status": "exit_cost",
    }


def test_a_demonstration_holds_only_its_history() -> None:
    events = read("demonstration.traj")
    assert calls(events) == [
        ("Glob", "call_find_1", {"pattern": "calc.py"}, "find_file"),
        ("Bash", "call_bash_2", {"command": "python -c 'import calc'"}, "bash"),
    ]
    assert events[0].data["text"] == "Fix the import error in calc.py"
    failed = [e.data["output"] for e in events if e.type == "tool_result" and e.data["is_error"]]
    assert failed == ["Traceback (most recent call last):\nImportError: cannot import name 'add'"]
    assert events[-1].data["ending"] == "completed"


def test_mini_swe_agent_commands_outputs_and_submission() -> None:
    events = read("mini.traj.json")
    assert [e.type for e in events] == [
        "user_message", "text", "tool_call", "tool_result",
        "text", "tool_call", "tool_result", "text", "completion",
    ]  # fmt: skip
    assert calls(events) == [
        ("Bash", "msg-2", {"command": "cat greet.py"}, "mswea_bash_command"),
        ("Bash", "msg-4", {"command": "./missing.sh"}, "mswea_bash_command"),
    ]
    failed = events[6].data
    assert (failed["returncode"], failed["is_error"]) == (127, True)
    assert failed["output"] == "./missing.sh: not found\n"
    assert events[-1].data["submission"] == "diff --git a/greet.py b/greet.py"


def test_the_format_names_the_replayed_agent() -> None:
    assert read_session(FIXTURES / "function_calling.traj").agent == "swe-agent"
    assert read_session(FIXTURES / "mini.traj.json").agent == "mini-swe-agent"


def test_mini_swe_agent_saved_with_info() -> None:
    events = read("mini_saved.traj.json")
    assert calls(events) == [("Bash", "msg-2", {"command": "ls -la src"}, "mswea_bash_command")]
    assert events[-1].data == {
        "result": "the run reached its step or cost limit",
        "is_error": True,
        "ending": "failed",
        "exit_status": "LimitsExceeded",
    }


@pytest.mark.parametrize(
    "name", ["function_calling.traj", "text_actions.traj", "mini.traj.json", "mini_saved.traj.json"]
)
def test_load_session_recognises_the_content_whatever_the_name(
    monologue_plugins: PluginSandbox, tmp_path: Path, name: str
) -> None:
    monologue_plugins.load("sweagent")
    renamed = tmp_path / "run.data"
    renamed.write_bytes((FIXTURES / name).read_bytes())
    events, reader = monologue_plugins.hooks.open_session(renamed)
    assert reader == "sweagent"
    assert [e.type for e in events] == [e.type for e in read(name)]


def test_each_fixture_is_narrated_naming_its_subjects(monologue_plugins: PluginSandbox) -> None:
    monologue_plugins.load("sweagent", "template", "buffer")
    replayed = monologue_plugins.replay(FIXTURES / "text_actions.traj", narrator="template")
    assert replayed.reader == "sweagent"
    subjects = ["parser.py", "parser.py", "parser.py", "tokenize"]
    for call, subject in zip(replayed.of_type("tool_call"), subjects, strict=True):
        assert subject in (replayed.narrative_of(call) or ""), subject


@pytest.mark.parametrize(
    ("status", "submitted", "ending", "result"),
    [
        ("submitted", True, "completed", None),
        ("Submitted", True, "completed", None),
        (
            "submitted (exit_cost)",
            True,
            "completed",
            "the patch was submitted for me: the run reached its cost limit",
        ),
        ("exit_context", False, "failed", "the run ran out of context"),
        (None, False, "cut_off", None),
    ],
)
def test_an_exit_status_becomes_a_plain_ending(
    status: str | None, submitted: bool, ending: str, result: str | None
) -> None:
    from monologue_sweagent.outcome import completion

    data = completion(status, submitted, None).data
    assert (data["ending"], data["result"]) == (ending, result)
    assert "exit_" not in str(data["result"])
