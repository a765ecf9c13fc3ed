"""SWE-agent's commands as the tools a narrator knows.

SWE-agent's agent-computer interface has its own commands (``open``, ``edit``, ``find_file``,
``str_replace_editor view``...). Each is mapped onto the canonical tool a narrator names the
subject of (``Read`` a file, ``Bash`` a command, ``Grep`` a pattern); the framework's own name
and arguments stay in the event as ``framework_tool`` / ``framework_input``.
"""

from __future__ import annotations

import shlex
from typing import Any

__all__ = ["Tool", "from_action", "from_function"]

Tool = tuple[str, dict[str, Any]]

_EDITOR = {
    "view": "Read",
    "create": "Write",
    "str_replace": "Edit",
    "insert": "Edit",
    "undo_edit": "Edit",
}
_OPEN_FILE_COMMANDS = frozenset({"goto", "scroll_up", "scroll_down"})
_EDIT_COMMANDS = frozenset({"edit", "insert", "append"})
SUBMIT = "submit"


def from_function(name: str, args: dict[str, Any], open_file: str | None) -> Tool:
    """A 1.x function call (``name`` and its JSON arguments) as a canonical tool."""
    path = _text(args.get("path")) or _text(args.get("file_path"))
    if name == "str_replace_editor":
        tool = _EDITOR.get(_text(args.get("command")) or "", "Edit")
        return tool, {"file_path": path or ""}
    if name in ("bash", "execute_bash", "run"):
        return "Bash", {"command": _text(args.get("command")) or ""}
    if name == "open":
        return "Read", {"file_path": path or ""}
    if name == "create":
        return "Write", {"file_path": _text(args.get("filename")) or path or ""}
    if name == "find_file":
        return "Glob", _drop_none(pattern=_text(args.get("file_name")), path=_text(args.get("dir")))
    if name in ("search_dir", "search_file"):
        where = _text(args.get("dir")) or _text(args.get("file")) or None
        return "Grep", _drop_none(pattern=_text(args.get("search_term")), path=where)
    if name in _EDIT_COMMANDS:
        return "Edit", {"file_path": path or open_file or ""}
    if name in _OPEN_FILE_COMMANDS:
        return "Read", {"file_path": open_file or ""}
    return "Bash", {"command": " ".join([name, *(str(value) for value in args.values())])}


def from_action(action: str, open_file: str | None) -> Tool:
    """A 0.x text action (``open "x.py" 30``, ``edit 3:5\\n...``, a shell command)."""
    first = action.strip().split("\n", 1)[0]
    try:
        words = shlex.split(first)
    except ValueError:
        words = first.split()
    if not words:
        return "Bash", {"command": action.strip()}
    name, rest = words[0], words[1:]
    if name == "str_replace_editor" and len(rest) >= 2:
        return from_function(name, {"command": rest[0], "path": rest[1]}, open_file)
    if name in ("open", "create") and rest:
        return ("Read" if name == "open" else "Write"), {"file_path": rest[0]}
    if name == "find_file" and rest:
        return "Glob", _drop_none(pattern=rest[0], path=rest[1] if len(rest) > 1 else None)
    if name in ("search_dir", "search_file") and rest:
        return "Grep", _drop_none(pattern=rest[0], path=rest[1] if len(rest) > 1 else open_file)
    if name in _EDIT_COMMANDS:
        return "Edit", {"file_path": open_file or ""}
    if name in _OPEN_FILE_COMMANDS:
        return "Read", {"file_path": open_file or ""}
    return "Bash", {"command": action.strip()}


def is_submit(action: str) -> bool:
    return action.strip().split(maxsplit=1)[:1] == [SUBMIT]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _drop_none(**values: str | None) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}
