"""OpenHands actions as the tools a narrator knows.

``run`` is a shell command, ``read`` / ``write`` / ``edit`` act on a file, ``browse`` fetches
a URL: they become ``Bash``, ``Read``, ``Write``, ``Edit`` and ``WebFetch`` with the input a
narrator names the subject of. An MCP call (``call_tool_mcp``) is the tool it names, with
its arguments as a dict (OpenHands keeps them as a JSON string), never raw JSON. The
action's own name, the function the model called and the action's arguments stay in the
event (``framework_tool``, ``function_name``, ``framework_input``).
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["TOOL_ACTIONS", "as_tool"]

_EDITOR_TOOLS = {"view": "Read", "create": "Write"}


def _run(args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "Bash", {"command": str(args.get("command", ""))}


# Older OpenHands leaves the editor command out of `args`, but keeps the call it made.
_TRANSLATED_COMMAND = re.compile(r"""['"]command['"]\s*:\s*['"](\w+)['"]""")


def _file(tool: str) -> Any:
    def convert(args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        command = args.get("command")
        if not isinstance(command, str):
            found = _TRANSLATED_COMMAND.search(str(args.get("translated_ipython_code", "")))
            command = found.group(1) if found else None
        chosen = _EDITOR_TOOLS.get(command, tool) if command else tool
        return chosen, {"file_path": str(args.get("path", ""))}

    return convert


def _browse(args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "WebFetch", {"url": str(args.get("url", ""))}


def _ipython(args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "IPython", {"code": str(args.get("code", ""))}


def _browse_interactive(args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "Browser", {"actions": str(args.get("browser_actions", ""))}


def _mcp(args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    arguments = args.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            arguments = {"arguments": arguments}
    if not isinstance(arguments, dict):
        arguments = {} if arguments is None else {"arguments": arguments}
    return str(args.get("name") or "mcp"), arguments


TOOL_ACTIONS = {
    "run": _run,
    "read": _file("Read"),
    "write": _file("Write"),
    "edit": _file("Edit"),
    "browse": _browse,
    "run_ipython": _ipython,
    "browse_interactive": _browse_interactive,
    "call_tool_mcp": _mcp,
}


def as_tool(action: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """``(tool_name, input)`` of a tool-running action, ``None`` for the others."""
    convert = TOOL_ACTIONS.get(action)
    return None if convert is None else convert(args)
