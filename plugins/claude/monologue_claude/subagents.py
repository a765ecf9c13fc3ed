"""Claude Code sub-agent files, merged into their parent transcript's replay.

Newer Claude Code writes each sub-agent's conversation to a file of its own,
``<session-id>/subagents/agent-<agentId>.jsonl``, beside the session's ``<session-id>.jsonl``;
its lines are ``isSidechain`` lines carrying the ``agentId``. When a transcript has such a
folder, its lines and the sub-agents' are read together, in time order, through one parser,
so that the story is one and the sub-agents' events are attributed to them by name: the name
of the ``Task`` / ``Agent`` call that launched each (its ``subagent_type`` or description),
found by the ``agentId`` that call's result reports (``toolUseResult.agentId``), else by the
prompt the sub-agent's first message repeats. The parent's ``agent_progress`` lines for a
merged sub-agent repeat its messages, and are left out. Compaction files
(``agent-acompact-*``) are not sub-agents and are left out too.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from monologue.errors import RecordingError

from .parsers import TranscriptParser

if TYPE_CHECKING:
    from monologue.events import Event

__all__ = ["merged_events", "subagent_files"]

_EARLIEST = datetime.min.replace(tzinfo=UTC)
Line = tuple[datetime, int, dict[str, Any], Path, str | None]
"""A decoded line: its time, line number, object, file, and sub-agent id (``None``: parent)."""


def subagent_files(path: Path) -> list[Path]:
    """The sub-agent files beside transcript ``path``, in name order; compactions are not
    sub-agents (they retell the conversation), and are left out."""
    from .standalone import is_compaction

    folder = path.with_suffix("") / "subagents"
    found = sorted(folder.glob("agent-*.jsonl")) if folder.is_dir() else []
    return [file for file in found if not is_compaction(file)]


def merged_events(path: Path, parser: TranscriptParser, files: list[Path]) -> Iterator[Event]:
    """The events of transcript ``path`` and of its sub-agent ``files``, in time order.

    A bad line raises :class:`~monologue.errors.RecordingError` naming its own file.
    """
    agents = {file.stem.removeprefix("agent-"): file for file in files}
    parser.leave_out_progress_of(frozenset(agents))
    launched_by = _launches(path)
    streams = [_lines(path, parser, None)]
    streams += [_lines(file, TranscriptParser(file), agent) for agent, file in agents.items()]
    for _, lineno, obj, source, agent in heapq.merge(*streams, key=lambda line: line[0]):
        if agent is not None:
            parser.converter.bind_sidechain(agent, launched_by.get(agent))
        try:
            yield from parser.feed_object(obj, lineno)
        except RecordingError as exc:
            if source == path:
                raise
            raise RecordingError(source, lineno, exc.problem) from None


def _lines(path: Path, decoder: TranscriptParser, agent: str | None) -> Iterator[Line]:
    """The lines of one file, decoded; a line without a time takes the one before it."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise decoder.error(None, f"cannot read: {exc.strerror or exc}") from None
    ts = _EARLIEST
    with handle:
        lineno = 0
        while line := handle.readline(decoder.max_line_bytes + 2):
            lineno += 1
            obj = decoder.decode(line, lineno)
            if obj is not None:
                ts = _time(obj.get("timestamp")) or ts
                yield ts, lineno, obj, path, agent


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        found = datetime.fromisoformat(value)
    except ValueError:
        return None
    return found if found.tzinfo else found.replace(tzinfo=UTC)


def _launches(path: Path) -> dict[str, str]:
    """``agentId`` -> the id of the call that launched it, from the parent's tool results."""
    found: dict[str, str] = {}
    with path.open("rb") as handle:
        for line in handle:
            if b'"agentId"' not in line or b'"toolUseResult"' not in line:
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                continue  # reported with its line number when the line is read in turn
            result = obj.get("toolUseResult") if isinstance(obj, dict) else None
            content = (obj.get("message") or {}).get("content") if isinstance(obj, dict) else None
            if not isinstance(result, dict) or not isinstance(content, list):
                continue
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    found[str(result.get("agentId"))] = str(block.get("tool_use_id"))
    return found
