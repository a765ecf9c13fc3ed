"""``monologue.digest.outcome_facts``: what a batch's results show, and nothing more."""

from __future__ import annotations

from monologue.digest import is_backgrounded, is_cancelled, is_declined, outcome_facts
from monologue.events import Event


def call(use_id: str, tool: str, **tool_input: object) -> Event:
    return Event(
        type="tool_call", data={"tool_name": tool, "tool_use_id": use_id, "input": tool_input}
    )


def result(use_id: str, output: str, is_error: bool = False) -> Event:
    return Event(
        type="tool_result", data={"tool_use_id": use_id, "output": output, "is_error": is_error}
    )


def test_a_finished_successful_call_needs_no_fact() -> None:
    assert outcome_facts([call("1", "Read", file_path="a.py"), result("1", "x")]) == []


def test_the_facts_of_a_batch() -> None:
    facts = outcome_facts(
        [
            call("1", "Bash", command="pytest"),
            result("1", "Command running in background with ID: b7"),
            call("2", "Read", file_path="gone.py"),
            call("3", "Read", file_path="a.py"),
            result("2", "File does not exist.", True),
            result("3", "<tool_use_error>Sibling tool call errored</tool_use_error>", True),
            call("4", "Glob", pattern="*.ex"),
            result("4", "The user doesn't want to proceed with this tool use.", True),
            call("5", "TaskOutput", task_id="b7"),
            result("5", "<status>running</status>"),
            call("6", "Bash", command="make"),
        ]
    )
    assert facts == [
        "Bash (command=pytest) was only started in the background: its outcome is not known "
        "yet (say it started; never that it passed or succeeded).",
        "Read (file_path=gone.py) failed.",
        "The user declined Glob (pattern=*.ex): it did not run.",
        "TaskOutput (task_id=b7) shows the background job is still running.",
        "Bash (command=make) is still running: no result yet (state no outcome for it).",
        "1 parallel call(s) were cancelled because Read (file_path=gone.py) failed: "
        "Read (file_path=a.py). Say this once, as that failure's consequence, not as failures "
        "of their own.",
    ]


def test_the_predicates() -> None:
    assert is_backgrounded({"run_in_background": True}, None)
    assert not is_backgrounded({}, "Command finished")
    assert is_cancelled("Sibling tool call errored", True)
    assert not is_cancelled("Sibling tool call errored", False)
    assert is_declined("The user doesn't want to proceed with this tool use.", True)
    assert not is_declined("ok", True)


def test_a_piped_command_and_an_injected_message_are_flagged() -> None:
    facts = outcome_facts(
        [
            call("1", "Bash", command="mix test | tail -50"),
            result("1", "** (Mix) Could not start application spotter"),
            call("2", "Bash", command="make || true"),
            result("2", "ok"),
            Event(type="user_message", data={"text": "summary", "origin": "compaction"}),
            Event(type="user_message", data={"text": "fix it", "origin": "user"}),
        ]
    )
    assert len(facts) == 2
    assert "piped" in facts[0] and "mix test | tail -50" in facts[0]
    assert "compaction message" in facts[1] and "not the user's request" in facts[1]
