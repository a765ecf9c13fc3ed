"""The presets: terse at most ten words, default one or two sentences, verbose two to four."""

from __future__ import annotations

import re
from typing import Any

import pytest
from template_scenes import call, done, event, tell, text

from monologue.events import Event

PYTEST_FAIL = (
    "FAILED tests/test_client.py::test_retry_limit - assert 3 == 5\n"
    "=================== 2 failed, 39 passed in 1.20s ===================\n"
)
LONG_TEXT = (
    "I'll run a variety of shell commands to test different scenarios, some that pass, some "
    "that fail, and some with surprising outputs, then summarise everything I found."
)

BATCHES: dict[str, tuple[list[Event], str, dict[str, Any]]] = {
    "reading": ([call("Read", file_path="src/client.py")], "buffer", {}),
    "reads": (
        [e for n in ("a", "b", "c", "d", "e") for e in done("Read", "x", file_path=f"{n}.py")],
        "buffer",
        {},
    ),
    "tests": (done("Bash", PYTEST_FAIL, True, command="pytest -q"), "buffer", {}),
    "commands": (
        [e for c in ("ls", "false", "pwd") for e in done("Bash", "x", c == "false", command=c)],
        "buffer",
        {"tool_calls": 3, "tool_errors": 1},
    ),
    "edits": (done("MultiEdit", "ok", file_path="src/client.py", edits=[{}, {}]), "buffer", {}),
    "search": (done("Grep", "Found 4 files", pattern="retry", path="src"), "buffer", {}),
    "long text": ([text(LONG_TEXT), call("Glob", pattern="**/*.py")], "buffer", {"first": True}),
    "sub-agent": (
        done("Task", "## Report\nThe limit is 3 in config.py.", description="Find it"),
        "buffer",
        {},
    ),
    "error": (
        [event("error", message="RuntimeError: " + "very long explanation " * 10)],
        "buffer",
        {},
    ),
    "final": (
        [
            *done("Read", "x", file_path="a.py"),
            event("completion", result="Fixed it.", is_error=False),
        ],
        "final",
        {"tool_calls": 12, "tool_errors": 2},
    ),
    "final error": (
        [
            event("error", message="KeyError: 'retries'"),
            event("completion", result=None, is_error=True),
        ],
        "final",
        {},
    ),
    "mixed": (
        [
            text("Let me look around."),
            *done("Read", "x", file_path="a.py"),
            *done("Grep", "No matches found", pattern="TODO"),
            *done("WebFetch", "page", url="https://example.org/x"),
            *done("Bash", "denied", True, command="./deploy.sh"),
        ],
        "buffer",
        {"tool_calls": 4, "tool_errors": 1},
    ),
}


def sentences(said: str) -> list[str]:
    return re.split(r"(?<=[.!?…])\s+(?=[A-Z\"'(])", said.strip())


@pytest.mark.parametrize("name", BATCHES)
def test_terse_is_at_most_ten_words(name: str) -> None:
    events, reason, facts = BATCHES[name]
    said = tell(events, reason=reason, preset="terse", **facts)
    assert said
    assert len(said.split()) <= 10, said
    assert len(sentences(said)) == 1, said


@pytest.mark.parametrize("name", BATCHES)
def test_default_is_one_or_two_sentences(name: str) -> None:
    events, reason, facts = BATCHES[name]
    said = tell(events, reason=reason, **facts)
    assert 1 <= len(sentences(said)) <= 2, said


@pytest.mark.parametrize("name", BATCHES)
def test_verbose_is_two_to_four_sentences(name: str) -> None:
    events, reason, facts = BATCHES[name]
    said = tell(events, reason=reason, preset="verbose", **facts)
    assert 2 <= len(sentences(said)) <= 4, said


@pytest.mark.parametrize("name", BATCHES)
def test_every_preset_speaks_in_the_first_person_or_names_who_acted(name: str) -> None:
    events, reason, facts = BATCHES[name]
    for preset in ("terse", "default", "verbose"):
        said = tell(events, reason=reason, preset=preset, **facts)
        assert re.search(r"\b(I|I'm|I'll|my|me)\b|^The \w+ agent", said), said


def test_terse_wording() -> None:
    events, _, _ = BATCHES["tests"]
    assert tell(events, preset="terse") == "I ran the tests; 2 of 41 failed."
    events, _, facts = BATCHES["final"]
    assert tell(events, reason="final", preset="terse", **facts) == (
        # The last step's subject over the count: terse names what it is about.
        "I'm done; last, I read a.py."
    )
    assert tell(BATCHES["reads"][0], preset="terse") == "I read a.py and 4 other files."


def test_verbose_adds_details_and_progress() -> None:
    events, _, _ = BATCHES["tests"]
    assert tell(events, preset="verbose") == (
        "I ran the test suite; 2 of 41 tests failed. "
        "The first failure is tests/test_client.py::test_retry_limit."
    )
    events, _, facts = BATCHES["commands"]
    assert tell(events, preset="verbose", **facts) == (
        "I ran `ls`, `false` and `pwd`; 1 failed. When running `false`, I got: x."
    )
    said = tell(done("Bash", "ok", command="make", description="Build the wheel"), preset="verbose")
    assert said == "I ran `make`. That was to build the wheel."
    said = tell(done("Read", "x", file_path="a.py"), preset="verbose", tool_calls=5, tool_errors=1)
    assert said == "I read a.py. So far I've made 5 tool calls, and 1 failed."


def test_verbose_reports_what_a_sub_agent_found() -> None:
    events, _, _ = BATCHES["sub-agent"]
    assert tell(events, preset="verbose") == (
        'I had a sub-agent handle "Find it"; it reported: The limit is 3 in config.py. '
        "I'll say more as it happens."
    )


def test_terse_ends_naming_the_structured_answers_file_after_one_tool_call() -> None:
    """An Agent SDK run that only answers in a schema: the ending names what it was about,
    never just "I'm done after 1 tool call"."""
    batch = [
        *done("StructuredOutput", "ok", metadata={"sourcePath": "/p/tests/tasks.md"}),
        event("completion", result="Parsed."),
    ]
    said = tell(batch, reason="final", preset="terse", tool_calls=1)
    assert said == "I'm done; last, I gave my structured answer about tasks.md."
