"""Adding monologue's hook entries to a Claude Code ``settings.json``, and taking them out.

The shape written (Claude Code's settings reference, see README.md)::

    {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command",
        "command": "/venv/bin/python -S -I /venv/.../monologue_hook.py run", "async": true,
        "timeout": 10}]}]}}

Each hook event gets one matcher group of its own, holding one command that runs the
``monologue_hook`` client: install adds the groups that are missing and changes nothing else,
uninstall removes exactly those groups. A backup of the file as it was is written next to it
before the first change. When uninstall leaves the settings equal to those the backup holds,
the backup's bytes are put back, so the file is as it was before install, byte for byte.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from monologue.errors import MonologueError
from monologue.files import write_atomically

__all__ = [
    "HOOK_EVENTS",
    "MARK",
    "SettingsError",
    "hook_command",
    "install",
    "installed_events",
    "settings_path",
    "uninstall",
]

HOOK_EVENTS = (
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "SubagentStart",
    "SubagentStop",
    "Notification",
    "Stop",
    "PreCompact",
)
"""The hook events narrated. Tool events take a matcher; the others take none."""

_TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
MARK = "monologue_hook"
"""What every command this module writes contains, and how its entries are found again."""
_MARKS = (MARK, "monologue-hook")
"""Also the console script's name, which a user may have written by hand."""
_BACKUP_SUFFIX = ".monologue-backup"
_ABSENT = b"// monologue: no settings file existed before install\n"


class SettingsError(MonologueError):
    """A settings file that cannot be read or changed (the message names it)."""


def settings_path(project: Path | None = None, *, user: bool = False) -> Path:
    """``<project>/.claude/settings.json``, or ``~/.claude/settings.json`` with ``user``."""
    if user:
        return Path.home() / ".claude" / "settings.json"
    return (project or Path.cwd()) / ".claude" / "settings.json"


def hook_command(*, speak: bool = False, serve: bool = False) -> str:
    """The command each hook runs: this Python running the ``monologue_hook`` client as a
    script, with ``-S -I`` (no site-packages to scan, no environment's PYTHON* settings):
    the fastest start there is, and right whatever PATH Claude Code gives its hooks."""
    import monologue_hook

    flags = [flag for flag, on in (("--speak", speak), ("--serve", serve)) if on]
    return shlex.join([sys.executable, "-S", "-I", monologue_hook.__file__, "run", *flags])


def _read(path: Path) -> tuple[bytes | None, dict[str, Any]]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, {}
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    try:
        settings = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (UnicodeDecodeError, ValueError) as exc:
        raise SettingsError(f"{path}: not JSON ({exc}); left unchanged") from None
    if not isinstance(settings, dict):
        raise SettingsError(f"{path}: not a JSON object; left unchanged")
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict) or not all(isinstance(v, list) for v in hooks.values()):
        raise SettingsError(f"{path}: 'hooks' is not an object of lists; left unchanged")
    return raw, settings


def _ours(group: Any) -> bool:
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        return False
    commands = [h.get("command", "") for h in group["hooks"] if isinstance(h, dict)]
    return bool(commands) and all(
        any(mark in str(command) for mark in _MARKS) for command in commands
    )


def _group(event: str, command: str) -> dict[str, Any]:
    entry = {"type": "command", "command": command, "async": True, "timeout": 10}
    group: dict[str, Any] = {"hooks": [entry]}
    if event in _TOOL_EVENTS:
        group = {"matcher": "*", **group}
    return group


def _write(path: Path, settings: dict[str, Any]) -> None:
    write_atomically(path, (json.dumps(settings, indent=2, ensure_ascii=False) + "\n").encode())


def installed_events(path: Path) -> list[str]:
    """The hook events whose monologue entry ``path`` holds."""
    _, settings = _read(path)
    hooks = settings.get("hooks", {})
    return [event for event, groups in hooks.items() if any(_ours(g) for g in groups)]


@dataclass(frozen=True)
class Change:
    path: Path
    events: list[str]
    """The hook events added (install) or removed (uninstall)."""
    backup: Path | None = None


def install(path: Path, *, speak: bool = False, serve: bool = False) -> Change:
    """Add the missing monologue entries to ``path``; a second install changes nothing
    (unless the flags differ: then the entries are replaced)."""
    raw, settings = _read(path)
    command = hook_command(speak=speak, serve=serve)
    hooks: dict[str, list[Any]] = settings.setdefault("hooks", {})
    added: list[str] = []
    for event in HOOK_EVENTS:
        groups = hooks.setdefault(event, [])
        mine = [g for g in groups if _ours(g)]
        if [g for g in mine if g == _group(event, command)] and len(mine) == 1:
            continue
        groups[:] = [g for g in groups if not _ours(g)]
        groups.append(_group(event, command))
        added.append(event)
    if not added:
        return Change(path, [])
    backup = path.with_name(path.name + _BACKUP_SUFFIX)
    if not backup.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(backup, raw if raw is not None else _ABSENT)
    _write(path, settings)
    return Change(path, added, backup)


def uninstall(path: Path) -> Change:
    """Remove exactly the monologue entries from ``path`` (and the groups and keys install
    created empty); the backup's bytes come back when nothing else changed."""
    raw, settings = _read(path)
    if raw is None:
        return Change(path, [])
    hooks = settings.get("hooks", {})
    removed: list[str] = []
    for event in list(hooks):
        kept = [g for g in hooks[event] if not _ours(g)]
        if len(kept) != len(hooks[event]):
            removed.append(event)
            hooks[event] = kept
            if not kept:
                del hooks[event]
    if not removed:
        return Change(path, [])
    if not hooks:
        del settings["hooks"]
    backup = path.with_name(path.name + _BACKUP_SUFFIX)
    before = backup.read_bytes() if backup.exists() else None
    if before == _ABSENT and not settings:
        path.unlink()
        backup.unlink()
    elif before is not None and before != _ABSENT and _read(backup)[1] == settings:
        write_atomically(path, before)
        backup.unlink()
    else:
        _write(path, settings)
        if before is not None:
            os.unlink(backup)
    return Change(path, removed)
