"""A Claude Code transcript turned into the hook payloads Claude Code would have sent while
writing it: the test plays both, the transcript growing as the hooks fire."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any


@dataclass
class Beat:
    """Lines appended to the transcript, then one payload sent (``None``: only lines)."""

    at: datetime | None
    lines: list[str]
    payload: dict[str, Any] | None


def _when(line: dict[str, Any]) -> datetime | None:
    stamp = line.get("timestamp")
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")) if stamp else None


def _is_prompt(content: Any) -> bool:
    return isinstance(content, str) and not content.lstrip().startswith(("<", "["))


def beats(source: Path, transcript: Path, cwd: str) -> list[Beat]:
    """The payloads for ``source``'s lines; ``transcript`` is the path hooks are told."""
    raw = [line for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    parsed = [json.loads(line) for line in raw]
    session_id = next(p["sessionId"] for p in parsed if p.get("sessionId"))
    base = {"session_id": session_id, "transcript_path": str(transcript), "cwd": cwd}
    found = [Beat(None, [], {**base, "hook_event_name": "SessionStart", "source": "startup"})]
    calls: dict[str, dict[str, Any]] = {}
    last_text: str | None = None
    in_turn = False

    def stop() -> None:
        nonlocal in_turn
        if in_turn:
            found.append(
                Beat(
                    None,
                    [],
                    {
                        **base,
                        "hook_event_name": "Stop",
                        "stop_hook_active": False,
                        "last_assistant_message": last_text,
                    },
                )
            )
        in_turn = False

    for text, line in zip(raw, parsed, strict=True):
        message = line.get("message") if isinstance(line.get("message"), dict) else {}
        content = message.get("content")
        at = _when(line)
        if line.get("type") == "user" and _is_prompt(content):
            stop()
            in_turn = True
            found.append(
                Beat(at, [text], {**base, "hook_event_name": "UserPromptSubmit", "prompt": content})
            )
            continue
        beat = Beat(at, [text], None)
        found.append(beat)
        for block in content if isinstance(content, list) else []:
            kind = block.get("type")
            if kind == "text" and line.get("type") == "assistant" and block["text"].strip():
                last_text = block["text"]
            elif kind == "tool_use":
                calls[block["id"]] = block
                found.append(
                    Beat(
                        at,
                        [],
                        {
                            **base,
                            "hook_event_name": "PreToolUse",
                            "tool_name": block["name"],
                            "tool_input": block["input"],
                            "tool_use_id": block["id"],
                        },
                    )
                )
            elif kind == "tool_result" and block["tool_use_id"] in calls:
                call = calls[block["tool_use_id"]]
                common = {
                    **base,
                    "tool_name": call["name"],
                    "tool_input": call["input"],
                    "tool_use_id": call["id"],
                }
                if block.get("is_error"):
                    payload = {
                        **common,
                        "hook_event_name": "PostToolUseFailure",
                        "error": block.get("content"),
                    }
                else:
                    response = line.get("toolUseResult", block.get("content"))
                    payload = {
                        **common,
                        "hook_event_name": "PostToolUse",
                        "tool_response": response,
                    }
                found.append(Beat(at, [], payload))
    stop()
    found.append(Beat(None, [], {**base, "hook_event_name": "SessionEnd", "reason": "other"}))
    return found
