"""monologue-claude: narrate Claude Code and the Claude Agent SDK.

- ``load_session``: replays Claude Code transcripts (``~/.claude/projects/*/*.jsonl``),
  logs of its hook payloads, ``claude -p --output-format stream-json`` output (NDJSON, or
  the same as a JSON array) and Agent SDK golden recordings (``{scenarioId, messages}``).
- ``adapt``: Claude Agent SDK message objects (and raw stream-json dicts) fed to a session,
  for instance yielded by an ``@monologue`` async generator.
- :func:`sdk_hooks`: narrate an SDK run through its hooks without changing its loop.
- :class:`TranscriptParser` / :class:`StreamJsonParser` and :func:`parser_for`: read a file
  line by line as it grows.

This module is imported whenever monologue loads its plugins (``monologue --help`` too), so
everything beyond the hook markers is imported when first used.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from monologue import hookimpl, lazy_exports

if TYPE_CHECKING:
    from monologue import Session
    from monologue.events import Event

    from .files import ClaudeFile, detect, parser_for, read_session
    from .parsers import LineParser, StreamJsonParser, TranscriptParser
    from .sdk_hooks import sdk_hooks

__all__ = [
    "ClaudeFile",
    "LineParser",
    "StreamJsonParser",
    "TranscriptParser",
    "adapt",
    "detect",
    "line_parser",
    "load_session",
    "parser_for",
    "read_session",
    "sdk_hooks",
]

_LAZY = {
    "ClaudeFile": "files",
    "detect": "files",
    "parser_for": "files",
    "read_session": "files",
    "LineParser": "parsers",
    "StreamJsonParser": "parsers",
    "TranscriptParser": "parsers",
    "sdk_hooks": "sdk_hooks",
}

# Class names of the Claude Agent SDK's messages; anything else is left to other plugins
# without importing this plugin's modules.
_SDK_MESSAGES = frozenset(
    {"AssistantMessage", "UserMessage", "SystemMessage", "ResultMessage", "StreamEvent"}
)
_STREAM_JSON_TYPES = frozenset({"system", "assistant", "user", "result", "stream_event"})


@hookimpl
def load_session(path: Path) -> Iterable[Event] | None:
    """Claude Code transcripts and hook payload logs, claude -p stream-json output (NDJSON
    or JSON array), and Agent SDK golden recordings."""
    from monologue.errors import NotMyFormat

    from .files import ClaudeFile, detect, refusal
    from .golden import GoldenFile, is_golden

    found = detect(Path(path))
    if found is not None:
        return ClaudeFile(path, found[0], array=found[1])
    if is_golden(Path(path)):
        return GoldenFile(path)
    raise NotMyFormat(refusal(Path(path)))


@hookimpl
def line_parser(path: Path) -> LineParser | None:
    """Follow a JSONL Claude file (transcript or stream-json) line by line as it grows."""
    from .files import parser_for

    return parser_for(path)


@hookimpl
def adapt(obj: Any, session: Session | None) -> list[Event] | None:
    """Claude Agent SDK messages, and stream-json dicts (with or without their ids), as
    events."""
    if isinstance(obj, dict):
        if obj.get("type") not in _STREAM_JSON_TYPES:
            return None
    elif not any(cls.__name__ in _SDK_MESSAGES for cls in type(obj).__mro__):
        return None
    from .sdk import adapt_message

    return adapt_message(obj, session)


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
