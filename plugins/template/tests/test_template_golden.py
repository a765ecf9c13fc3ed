"""A compact mixed session narrated batch by batch in every preset, word for word as the
narrator said it when it was made faster (issue 22): an optimisation must not change a
narrative. The same batches narrated as the ``narrate`` hook's (already redacted by the
pipeline, so not searched again) say the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from monologue_template.actions import Memory
from monologue_template.compose import Scene, narrate
from template_scenes import AGENT, call, done, event, result, text

from monologue.events import Event

PYTEST_FAIL = (
    "FAILED tests/test_client.py::test_retry_limit - assert 3 == 5\n"
    "=================== 2 failed, 39 passed in 1.20s ===================\n"
)


def batches() -> list[tuple[list[Event], str]]:
    """The session: a prompt, reads and searches, edits, a failing then a passing test run,
    a call that runs across two batches, a sub-agent, a cancelled sibling, an error, a user
    interruption, and the end."""
    slow = call("Bash", command="make build")
    first = call("Read", file_path="src/missing.py")
    sibling = call("Read", file_path="src/other.py")
    return [
        ([event("user_message", text="Fix the retry limit in the HTTP client.")], "buffer"),
        (
            [
                text("Let me look at the client first."),
                *done("Read", "def fetch(url):\n    retries = 3\n", file_path="src/client.py"),
                *done("Grep", "src/client.py:12: retries = 3", pattern="retry", path="src"),
                *done("Glob", "src/a.py\nsrc/b.py", pattern="**/*.py"),
            ],
            "buffer",
        ),
        (
            [
                *done("Edit", "ok", file_path="src/client.py", old_string="3", new_string="cfg"),
                *done("MultiEdit", "ok", file_path="src/config.py", edits=[{}, {}]),
                *done("Write", "ok", file_path="src/new.py", content="a\nb\nc\n"),
                *done("Bash", PYTEST_FAIL, True, command="pytest -q"),
            ],
            "buffer",
        ),
        ([text("The limit is read from the config now."), slow], "buffer"),
        (
            [
                result(slow, "built"),
                *done("Bash", "41 passed in 1.20s", command="pytest -q"),
                *done("Bash", "x", command="ls"),
                *done("Bash", "fatal: not a git repository", True, command="git status"),
            ],
            "buffer",
        ),
        (
            [
                *done("Task", "## Report\nThe limit is 3 in config.py.", description="Find it"),
                first,
                sibling,
                result(first, "File does not exist.", True),
                result(sibling, "<tool_use_error>Sibling tool call errored</tool_use_error>", True),
            ],
            "buffer",
        ),
        ([event("error", message="rate limited")], "buffer"),
        (
            [
                *done("WebFetch", "ok", url="https://example.com/docs/retries"),
                event("user_message", text="[Request interrupted by user]"),
            ],
            "buffer",
        ),
        ([text("I'm done: the retry limit comes from the config.")], "final"),
    ]


GOLDEN: dict[str, list[str]] = json.loads(
    (Path(__file__).parent / "data" / "golden_session.json").read_text()
)
"""What main's narrator said, preset by preset (written once from its output)."""


def told(preset: str, *, redacted: bool) -> list[str]:
    scene = Scene(agent=AGENT, preset=preset, first=True, memory=Memory(), redacted=redacted)
    history: list[str] = []
    for events, reason in batches():
        scene.history = history[-10:]
        history.append(narrate(scene, events, reason))
        scene.first = False
        scene.tool_calls += sum(e.type == "tool_call" for e in events)
        scene.tool_errors += sum(bool(e.data.get("is_error")) for e in events)
    return history


@pytest.mark.parametrize("preset", sorted(GOLDEN))
def test_a_mixed_session_is_told_as_it_always_was(preset: str) -> None:
    assert told(preset, redacted=False) == GOLDEN[preset]


@pytest.mark.parametrize("preset", sorted(GOLDEN))
def test_the_hooks_redacted_batches_are_told_alike(preset: str) -> None:
    assert told(preset, redacted=True) == told(preset, redacted=False)
