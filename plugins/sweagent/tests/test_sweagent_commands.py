"""SWE-agent's commands mapped onto the tools narrators know, and the subject they name."""

from __future__ import annotations

from typing import Any

import pytest
from monologue_sweagent.commands import from_action, from_function

OPEN = "/repo/src/app.py"
SRE = "str_replace_editor"


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        (SRE, {"command": "view", "path": "a.py"}, ("Read", {"file_path": "a.py"})),
        (SRE, {"command": "create", "path": "b.py"}, ("Write", {"file_path": "b.py"})),
        (SRE, {"command": "str_replace", "path": "c.py"}, ("Edit", {"file_path": "c.py"})),
        (SRE, {"command": "undo_edit", "path": "d.py"}, ("Edit", {"file_path": "d.py"})),
        ("bash", {"command": "ls -la"}, ("Bash", {"command": "ls -la"})),
        ("create", {"filename": "new.py"}, ("Write", {"file_path": "new.py"})),
        ("search_file", {"search_term": "TODO"}, ("Grep", {"pattern": "TODO"})),
        ("search_dir", {"search_term": "x", "dir": "l"}, ("Grep", {"pattern": "x", "path": "l"})),
        ("goto", {"line_number": 40}, ("Read", {"file_path": OPEN})),
        ("scroll_down", {}, ("Read", {"file_path": OPEN})),
        ("insert", {"text": "x"}, ("Edit", {"file_path": OPEN})),
        ("python", {"script": "t.py"}, ("Bash", {"command": "python t.py"})),
    ],
)  # fmt: skip
def test_function_calls(
    name: str, args: dict[str, Any], expected: tuple[str, dict[str, Any]]
) -> None:
    assert from_function(name, args, OPEN) == expected


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ('open "src/x.py" 30', ("Read", {"file_path": "src/x.py"})),
        ("create notes.txt\n", ("Write", {"file_path": "notes.txt"})),
        ("edit 3:5\n    return 1\nend_of_edit", ("Edit", {"file_path": OPEN})),
        ('search_file "needle"', ("Grep", {"pattern": "needle", "path": OPEN})),
        ("find_file setup.py /repo", ("Glob", {"pattern": "setup.py", "path": "/repo"})),
        ("str_replace_editor view /r/a.py", ("Read", {"file_path": "/r/a.py"})),
        ("pytest -x tests/", ("Bash", {"command": "pytest -x tests/"})),
        ("echo 'unclosed", ("Bash", {"command": "echo 'unclosed"})),
    ],
)
def test_text_actions(action: str, expected: tuple[str, dict[str, Any]]) -> None:
    assert from_action(action, OPEN) == expected
