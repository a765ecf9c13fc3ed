"""A sub-agent's file read on its own: the sub-agent tells its own story.

Replayed alone, ``<session>/subagents/agent-<agentId>.jsonl`` is not a side story but the
whole one: its lines are the main agent's (told in the first person), and the session is
named after the sub-agent as its parent's ``Task`` / ``Agent`` call named it (its type, else
its description), found in the sibling parent transcript ``<session>.jsonl`` by the
``agentId`` its result reports or by the prompt the file starts with; without the parent,
after the first words of that prompt.

A transcript found elsewhere whose first message is a sidechain line (``isSidechain``) is
a sub-agent's file copied out of its folder: it reads alone too, named
after its prompt.

``agent-acompact-<id>.jsonl`` files are Claude Code compacting the conversation, not a
sub-agent: read alone, their summary becomes one ``compaction`` event ("I compacted the
conversation"); merged into their parent's replay, they are left out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .convert import SUBAGENT_TOOLS, launch_label

__all__ = ["COMPACTION_PREFIX", "Alone", "is_compaction", "read_alone"]

COMPACTION_PREFIX = "agent-acompact"
"""File names of Claude Code's compaction runs (``agent-acompact-<id>.jsonl``)."""

_NAME_WORDS = 6


@dataclass(frozen=True)
class Alone:
    """A sub-agent file read on its own: its ``agentId``, the name it speaks under, and
    whether it is a compaction."""

    agent_id: str
    name: str
    compaction: bool = False


def is_compaction(path: Path) -> bool:
    return path.name.startswith(COMPACTION_PREFIX)


def read_alone(path: Path, default: str) -> Alone | None:
    """How ``path`` reads on its own when it is a sub-agent file, else ``None``.
    ``default`` names a compaction (the main agent compacts its own conversation)."""
    if path.parent.name != "subagents" or not path.name.startswith("agent-"):
        return _copied_out(path)
    agent_id = path.stem.removeprefix("agent-")
    if is_compaction(path):
        return Alone(agent_id, default, compaction=True)
    prompt = _first_prompt(path)
    parent = path.parent.parent.with_suffix(".jsonl")
    name = _launch_name(parent, agent_id, prompt) if parent.is_file() else None
    return Alone(agent_id, name or _prompt_name(prompt) or "sub-agent")


def _copied_out(path: Path) -> Alone | None:
    """A sub-agent's file outside its folder: its first message is a sidechain's."""
    try:
        handle = path.open("rb")
    except OSError:
        return None
    with handle:
        for line in handle:
            try:
                obj = json.loads(line)
            except ValueError:
                return None
            if not isinstance(obj, dict) or obj.get("type") not in ("user", "assistant"):
                continue
            if obj.get("isSidechain") is not True:
                return None
            agent_id = obj.get("agentId")  # older Claude Code wrote none
            prompt = _content(obj) if obj.get("type") == "user" else None
            return Alone(
                agent_id if isinstance(agent_id, str) else "",
                _prompt_name(prompt if isinstance(prompt, str) else None) or "sub-agent",
            )
    return None


def _objects(path: Path) -> list[dict[str, Any]]:
    """The file's JSON objects; a damaged line is skipped here and reported when read."""
    found = []
    try:
        lines = path.read_bytes().splitlines()
    except OSError:
        return []
    for line in lines:
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            found.append(obj)
    return found


def _content(obj: dict[str, Any]) -> Any:
    message = obj.get("message")
    return message.get("content") if isinstance(message, dict) else None


def _first_prompt(path: Path) -> str | None:
    for obj in _objects(path):
        if obj.get("type") != "user":
            continue
        content = _content(obj)
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            texts = [b.get("text") for b in content if isinstance(b, dict) and "text" in b]
            return str(texts[0]) if texts else None
        return None
    return None


def _launch_name(parent: Path, agent_id: str, prompt: str | None) -> str | None:
    """The name the parent's call gave the sub-agent: the call whose result reports
    ``agent_id``, else the call that sent exactly ``prompt``."""
    calls: dict[str, dict[str, Any]] = {}
    launched_by = None
    for obj in _objects(parent):
        content = _content(obj)
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            tool_input = block.get("input")
            if block.get("name") in SUBAGENT_TOOLS and isinstance(tool_input, dict):
                calls[str(block.get("id"))] = tool_input
            result = obj.get("toolUseResult")
            if (
                block.get("type") == "tool_result"
                and isinstance(result, dict)
                and result.get("agentId") == agent_id
            ):
                launched_by = str(block.get("tool_use_id"))
    chosen = calls.get(launched_by or "")
    if chosen is None and prompt:
        chosen = next((c for c in calls.values() if c.get("prompt") == prompt), None)
    return launch_label(chosen) if chosen is not None else None


def _prompt_name(prompt: str | None) -> str | None:
    """The first words of the prompt: what the sub-agent was asked to do."""
    words = (prompt or "").split()
    if not words:
        return None
    name = " ".join(words[:_NAME_WORDS]).rstrip(".,:;")
    return name + ("…" if len(words) > _NAME_WORDS else "")
