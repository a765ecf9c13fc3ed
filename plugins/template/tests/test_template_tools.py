"""One sentence per known tool, naming its concrete subject, running and done."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from template_scenes import call, done, tell

from monologue.events import Event

PRESETS = ("default", "terse", "verbose")


def test_reading_two_files_names_both() -> None:
    batch = [
        call("Read", file_path="src/client.py"),
        call("Read", file_path="tests/test_client.py"),
    ]
    assert tell(batch) == "I'm reading src/client.py and tests/test_client.py."


TODOS = [
    {"content": "Find the retry limit", "status": "completed"},
    {"content": "Write tests", "status": "in_progress"},
    {"content": "Update the docs", "status": "pending"},
]


@pytest.mark.parametrize(
    ("batch", "expected"),
    [
        (done("Read", "1\timport os", file_path="src/client.py"), "I read src/client.py."),
        (done("Write", "created", file_path="notes.md", content="a\nb"), "I wrote notes.md."),
        (
            done("Edit", "updated", file_path="src/client.py", old_string="3", new_string="5"),
            "I edited src/client.py.",
        ),
        (
            done("MultiEdit", "3 edits applied", file_path="src/client.py", edits=[{}, {}, {}]),
            "I made 3 edits to src/client.py.",
        ),
        (
            done("NotebookEdit", "ok", notebook_path="analysis.ipynb", new_source="x = 1"),
            "I edited analysis.ipynb.",
        ),
        (done("Bash", "On branch main", command="git status"), "I ran `git status`."),
        (
            done("Bash", "======= 2 failed, 39 passed in 3.1s =======", command="pytest -q"),
            "I ran the test suite; 2 of 41 tests failed.",
        ),
        (
            done("Bash", "Started", command="npm run dev", run_in_background=True),
            "I started `npm run dev` in the background.",
        ),
        (
            done("Grep", "Found 19 files\nsrc/a.py\n", pattern="retry", path="src"),
            'I searched for "retry" in src; 19 files matched.',
        ),
        (
            done("Grep", "No matches found", pattern="max_retries"),
            'I searched for "max_retries"; nothing matched.',
        ),
        (
            done("Glob", "src/a.py\nsrc/b.py\nsrc/c.py", pattern="src/**/*.py"),
            "I looked for files matching src/**/*.py; found 3.",
        ),
        (done("LS", "- src/\n  - a.py", path="src"), "I listed the files in src."),
        (
            done("WebSearch", "Links: [...]", query="pluggy firstresult hook"),
            'I searched the web for "pluggy firstresult hook".',
        ),
        (
            done("WebFetch", "# Docs", url="https://pluggy.readthedocs.io/en/latest/", prompt="?"),
            "I fetched https://pluggy.readthedocs.io/en/latest/.",
        ),
        (
            done("Task", "The limit is in config.py.", description="Find the retry limit"),
            'I had a sub-agent handle "Find the retry limit"; it reported: '
            "The limit is in config.py.",
        ),
        (
            done("TodoWrite", "ok", todos=TODOS),
            'I updated my task list; 1 of 3 items is done, and I\'m on "Write tests".',
        ),
        (done("deploy", "deployed", service="api"), "I used deploy on api."),
        (
            done("mcp__github__create_issue", "#12", title="Crash on start"),
            "I used create_issue (github) on Crash on start.",
        ),
        (done("mystery"), "I used mystery."),
        (
            done("StructuredOutput", "ok", metadata={"sourcePath": "/p/tests/tasks.md"}, tasks=[]),
            "I gave my structured answer about /p/tests/tasks.md.",
        ),
        (done("StructuredOutput", "ok", tasks=[]), "I gave my structured answer."),
    ],
)
def test_each_known_tool_and_the_fallback_name_the_subject(
    batch: list[Event], expected: str
) -> None:
    assert tell(batch) == expected


@pytest.mark.parametrize(
    ("tool", "tool_input", "expected"),
    [
        ("Read", {"file_path": "src/client.py"}, "I'm reading src/client.py."),
        ("Write", {"file_path": "notes.md"}, "I'm writing notes.md."),
        ("Edit", {"file_path": "src/client.py"}, "I'm editing src/client.py."),
        ("Bash", {"command": "pytest -x tests"}, "I'm running the test suite."),
        ("Bash", {"command": "make build"}, "I'm running `make build`."),
        ("Grep", {"pattern": "retry"}, 'I\'m searching for "retry".'),
        ("Glob", {"pattern": "*.toml"}, "I'm looking for files matching *.toml."),
        ("LS", {"path": "docs"}, "I'm listing the files in docs."),
        (
            "WebSearch",
            {"query": "jinja2 strict undefined"},
            'I\'m searching the web for "jinja2 strict undefined".',
        ),
        ("WebFetch", {"url": "https://example.org/a"}, "I'm fetching https://example.org/a."),
        (
            "Task",
            {"description": "Audit the tests"},
            'I\'m waiting for a sub-agent to finish "Audit the tests".',
        ),
        ("TodoWrite", {"todos": TODOS}, "I'm updating my task list."),
        ("lookup", {"key": "retries"}, "I'm using lookup on retries."),
    ],
)
def test_a_tool_still_running_is_told_in_the_present(
    tool: str, tool_input: dict[str, Any], expected: str
) -> None:
    assert tell(call(tool, **tool_input)) == expected


@pytest.mark.parametrize(
    ("tool", "tool_input", "kind_of_sentence"),
    [
        ("read_file", {"path": "a.py"}, "I read a.py."),
        ("execute_bash", {"command": "ls"}, "I ran `ls`."),
        ("str_replace_editor", {"command": "view", "path": "a.py"}, "I read a.py."),
        ("str_replace_editor", {"command": "create", "path": "b.py"}, "I wrote b.py."),
        ("str_replace_editor", {"command": "str_replace", "path": "a.py"}, "I edited a.py."),
        ("web_search", {"query": "x"}, 'I searched the web for "x".'),
    ],
)
def test_other_frameworks_names_for_the_same_tools(
    tool: str, tool_input: dict[str, Any], kind_of_sentence: str
) -> None:
    assert tell(done(tool, "ok", **tool_input)) == kind_of_sentence


def test_absolute_paths_are_said_from_the_project_root() -> None:
    batch = done("Read", "x", file_path="/home/ann/work/shop/src/shop/cart.py")
    assert tell(batch) == "I read src/shop/cart.py."
    batch = done("Read", "x", file_path="/home/ann/notes.txt")
    assert tell(batch) == "I read ~/notes.txt."


def test_paths_under_the_session_cwd_are_relative() -> None:
    batch = done("Read", "x", file_path="/srv/shop/setup.cfg")
    assert tell(batch, cwd="/srv/shop") == "I read setup.cfg."


def test_long_commands_are_shortened_to_their_first_line() -> None:
    script = "cd /repo && python - <<'EOF'\nimport sys\nprint(sys.version)\nEOF"
    assert tell(done("Bash", "3.11", command=script)) == "I ran `python - <<'EOF' …`."


def test_secrets_in_tool_inputs_never_reach_the_narration() -> None:
    command = "curl -H 'Authorization: Bearer abcdef1234567890' https://api.example.org"
    said = tell(call("Bash", command=command))
    assert "abcdef1234567890" not in said
    assert "[REDACTED]" in said


def test_a_file_tools_input_is_redacted_but_for_what_it_writes() -> None:
    # What it writes is never quoted, so left as it is; the rest is searched once and
    # redacted only when the search finds something.
    from monologue_template.actions import _redacted

    edit = {"file_path": "a.py", "old_string": "x", "new_string": "password=hunter2"}
    assert _redacted("Edit", edit) == edit
    secret = {**edit, "api_key": "abc123"}
    assert _redacted("Edit", secret) == {**edit, "api_key": "[REDACTED]"}


@pytest.mark.parametrize(
    ("tool", "output", "is_error", "tool_input"),
    [
        (
            "Bash",
            "Exit code 1\nerror: login failed for password=hunter2secret",
            True,
            {"command": "deploy"},
        ),
        (
            "Bash",
            "FAILED tests/test_a.py::test_x - KeyError: sk-ant-api03-abcdefghijkl\n1 failed",
            True,
            {"command": "pytest"},
        ),
        (
            "Task",
            "The key is sk-ant-api03-abcdefghijklmnop in .env.",
            False,
            {"description": "Find the key"},
        ),
    ],
)
def test_secrets_quoted_from_outputs_are_redacted(
    tool: str, output: str, is_error: bool, tool_input: dict[str, str]
) -> None:
    said = " ".join(tell(done(tool, output, is_error, **tool_input), preset=p) for p in PRESETS)
    assert "hunter2secret" not in said and "abcdefghijkl" not in said


def test_paths_under_the_process_cwd_are_relative_as_of_the_latest_narration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from monologue_template.tools import note_process_cwd

    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    monkeypatch.chdir(first)
    note_process_cwd()
    assert tell(done("Read", "x", file_path=f"{first}/pkg/mod.py")) == "I read pkg/mod.py."
    monkeypatch.chdir(second)
    note_process_cwd()  # what the narrate hook does at each narration
    assert tell(done("Read", "x", file_path=f"{second}/notes/util.txt")) == "I read notes/util.txt."
    second.rmdir()  # the process's folder removed under it: paths are said in full
    note_process_cwd()
    said = tell(done("Read", "x", file_path=f"{second}/notes/util.txt"))
    assert said != "I read notes/util.txt."
    assert "util.txt" in said


def test_the_process_cwd_is_read_once_a_narration_and_only_for_a_full_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os

    from monologue_template import tools

    reads: list[str] = []
    getcwd = os.getcwd
    monkeypatch.setattr(tools.os, "getcwd", lambda: reads.append("cwd") or getcwd())
    tools.note_process_cwd()
    tell(done("Read", "x", file_path="src/a.py"), done("Grep", "x", pattern="y", path="src"))
    assert reads == []  # relative paths: the process's folder is never asked for
    tell(done("Read", "x", file_path="/elsewhere/b.py"), done("Read", "x", file_path="/x/c.py"))
    assert reads == ["cwd"]
    tools.note_process_cwd()  # the next narration reads it again
    tell(done("Read", "x", file_path="/elsewhere/d.py"))
    assert reads == ["cwd", "cwd"]
