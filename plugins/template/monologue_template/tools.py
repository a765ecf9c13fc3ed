"""What the narrator knows about agent tools: their kind and the subject a person would name.

Claude Code's tool names are canonical; the lower-case names other agent frameworks use for
the same tools are aliases. Anything else is an unknown tool, narrated from its salient input.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import PurePosixPath
from typing import Any

from monologue.redact import redact_text

from .wording import clip_middle, squash

KINDS: dict[str, str] = {
    "Read": "read",
    "Write": "write",
    "Edit": "edit",
    "MultiEdit": "edit",
    "NotebookEdit": "edit",
    "Bash": "bash",
    "BashOutput": "job_output",
    "TaskOutput": "job_output",
    "AgentOutputTool": "job_output",
    "KillShell": "kill",
    "KillBash": "kill",
    "ExitPlanMode": "plan_done",
    "EnterPlanMode": "plan_start",
    "AskUserQuestion": "ask",
    "Skill": "skill",
    "SlashCommand": "slash",
    "TaskCreate": "todo",
    "TaskUpdate": "todo",
    "TaskList": "todo_check",
    "TaskGet": "todo_check",
    "StructuredOutput": "structured",
    "LSP": "lsp",
    "ListMcpResourcesTool": "mcp_list",
    "ReadMcpResourceTool": "mcp_read",
    "Grep": "grep",
    "Glob": "glob",
    "LS": "ls",
    "WebSearch": "web_search",
    "WebFetch": "web_fetch",
    "Task": "task",
    "Agent": "task",
    "TodoWrite": "todo",
}

ALIASES: dict[str, str] = {
    "read_file": "read",
    "view": "read",
    "cat": "read",
    "write_file": "write",
    "create_file": "write",
    "edit_file": "edit",
    "str_replace": "edit",
    "apply_patch": "edit",
    "bash": "bash",
    "shell": "bash",
    "execute_bash": "bash",
    "run_command": "bash",
    "run_shell_command": "bash",
    "terminal": "bash",
    "grep": "grep",
    "search_files": "grep",
    "glob": "glob",
    "find_files": "glob",
    "ls": "ls",
    "list_dir": "ls",
    "list_directory": "ls",
    "list_files": "ls",
    "web_search": "web_search",
    "search_web": "web_search",
    "web_fetch": "web_fetch",
    "fetch": "web_fetch",
    "fetch_url": "web_fetch",
    "todo_write": "todo",
}

# Where a project's own paths usually start: "…/project/src/x.py" reads as "src/x.py".
_ROOT_MARKERS = frozenset(
    {"src", "lib", "tests", "test", "app", "apps", "packages", "docs", "examples", "scripts"}
)
# Claude Code's file for a tool output too long to show: an internal id, not a subject.
_SAVED_OUTPUT = re.compile(r"\S*/tool-results/\S+")
_TOOL_RESULTS = "/tool-results/"  # checked first: the regex is slow to find nothing
_CD_PREFIX = re.compile(r"^cd\s+\S+\s*(?:&&|;)\s*")
_TEST_COMMAND = re.compile(
    r"(?:^|[\s;&|(/])(?:pytest|py\.test|tox|nox|jest|vitest|mocha|rspec|phpunit|ctest"
    r"|python3?\s+-m\s+(?:pytest|unittest)"
    r"|(?:go|cargo|mix|dotnet|swift|deno|bun|zig)\s+test"
    r"|(?:npm|yarn|pnpm)\s+(?:run\s+)?test(?::\S+)?"
    r"|(?:make|gradle|mvn|\./gradlew)\s+(?:\S+\s+)?test)\b"
)


# SWE-agent's and OpenHands' file tool does several things, told apart by its `command`.
_EDITOR_COMMANDS = {"view": "read", "create": "write", "str_replace": "edit", "insert": "edit"}


def kind_of(tool_name: str | None, tool_input: dict[str, Any] | None = None) -> str:
    """The canonical kind of a tool (``read``, ``bash``...), ``other`` when unknown."""
    if not tool_name:
        return "other"
    if tool_name in KINDS:
        return KINDS[tool_name]
    if tool_name.lower() == "str_replace_editor":
        return _EDITOR_COMMANDS.get(str((tool_input or {}).get("command")), "edit")
    return ALIASES.get(tool_name.lower(), "other")


def tool_label(tool_name: str | None) -> str:
    """A readable name for an unknown tool: ``mcp__github__create_issue`` -> ``create_issue``."""
    if not tool_name:
        return "a tool"
    if tool_name.startswith("mcp__"):
        parts = [part for part in tool_name.split("__") if part]
        if len(parts) >= 3:
            return f"{parts[-1]} ({parts[1]})"
    return tool_name


_process_cwd: str | None = ""
"""The process's working folder as read in this narration: ``None`` until a full path
needs it, ``""`` before the first narration or when the folder is gone."""


def note_process_cwd() -> None:
    """Forget the process's working folder, to read it again, once per narration, when a
    full path first needs it (never for relative ones): ``os.getcwd`` releases the GIL, and
    on a busy agent each call then waits its turn. A folder removed under the process
    leaves paths as they are."""
    global _process_cwd
    _process_cwd = None


def _current_cwd() -> str:
    global _process_cwd
    if _process_cwd is None:
        try:
            _process_cwd = os.getcwd()
        except OSError:
            _process_cwd = ""
    return _process_cwd


def display_path(raw: Any, cwd: str | None = None, short: bool = False) -> str:
    """A path as a person would say it: relative to the project when that can be told."""
    text = str(raw)
    # Only an absolute path, said in full, is made relative to the process's folder (and
    # redaction never makes a path absolute: what it writes starts as the text did or "[").
    if short or not squash(text).startswith("/"):
        return _display_path(text, cwd, short, "")
    return _display_path(text, cwd, short, _current_cwd())


# Paths repeat all through a session, and pathlib parsing was a third of a narration's cost.
@functools.lru_cache(maxsize=4096)
def _display_path(raw: str, cwd: str | None, short: bool, process_cwd: str) -> str:
    text = redact_text(squash(raw))
    if not text:
        return "a file"
    if _TOOL_RESULTS in text and _SAVED_OUTPUT.search(text):
        return "a saved tool output"
    parts = _path_parts(text)
    absolute = text.startswith("/")
    if short:  # PurePosixPath.name: the last part, none for the root alone
        return (parts[-1] if len(parts) > absolute else "") or text
    for base in (cwd, process_cwd):
        if base and absolute:
            prefix = _path_parts(base)
            if len(parts) > len(prefix) and parts[: len(prefix)] == prefix:
                return "/".join(parts[len(prefix) :])
    if absolute and len(parts) > 4:
        for index, part in enumerate(parts[1:-1], 1):
            if part in _ROOT_MARKERS:
                return "/".join(parts[index:])
    if absolute and len(parts) > 3 and parts[1] in ("home", "Users"):
        return "/".join(("~", *parts[3:]))
    return text


@functools.lru_cache(maxsize=1024)
def _path_parts(text: str) -> tuple[str, ...]:
    """``PurePosixPath(text).parts``, split as a string when that gives the same parts
    (no empty or ``.`` part, no trailing slash): pathlib takes several microseconds."""
    pieces = text.split("/")
    if "" in pieces[1:] or "." in pieces:
        return PurePosixPath(text).parts
    if pieces[0] == "":
        pieces[0] = "/"
    return tuple(pieces)


def command_text(raw: Any, limit: int = 60) -> str:
    """A shell command shortened for a sentence (first line, no leading ``cd x &&``): long
    paths keep their last parts, and a long command its head and its tail, so that two
    commands that differ stay different."""
    return _command_text(str(raw), limit)


# A command is named several times per narration (full, short, in a list).
@functools.lru_cache(maxsize=2048)
def _command_text(raw: str, limit: int) -> str:
    lines = [line for line in str(raw).strip().splitlines() if line.strip()]
    text = redact_text(lines[0] if lines else "")
    text = _CD_PREFIX.sub("", text.strip())
    if _TOOL_RESULTS in text:
        text = _SAVED_OUTPUT.sub("a-saved-tool-output", text)
    if len(text) > limit:
        text = " ".join(path_tail(token) for token in text.split(" "))
    if len(lines) > 1:
        text += " …"
    return clip_middle(text, limit)


def path_tail(token: str, parts: int = 2) -> str:
    """A long path as its last ``parts`` parts (``…/spotter/lib``); other words unchanged."""
    bare = token.strip("'\"")
    pieces = [piece for piece in bare.split("/") if piece]
    if "/" not in bare or len(pieces) <= parts or len(bare) <= 20 or "://" in bare:
        return token
    return "…/" + "/".join(pieces[-parts:])


def is_test_command(raw: Any) -> bool:
    return bool(_TEST_COMMAND.search(str(raw)))


def input_path(tool_input: dict[str, Any]) -> str | None:
    for key in ("file_path", "path", "notebook_path", "filename", "file"):
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None
