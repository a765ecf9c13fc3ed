"""Logs of Claude Code hook payloads: the JSON objects Claude Code writes to a hook command's
stdin, one a line, as hook loggers save them.

``UserPromptSubmit`` is the prompt (with its origin: Claude Code submits its task notices
this way too), ``PreToolUse`` / ``PostToolUse`` / ``PostToolUseFailure`` a tool call and its
result (attributed to the sub-agent their ``agent_id`` names), ``SubagentStop`` and ``Stop``
the last words of a sub-agent and of the agent's turn, ``Stop`` the turn's completion. The
other hooks (session start and end, notifications, permission requests, compaction) carry
nothing to narrate. Older Claude Code (1.0) sends no ``tool_use_id``: a result is paired
with the earliest unanswered call of the same tool and input.
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from typing import TYPE_CHECKING, Any

from .convert import Converter, tool_output
from .parsers import LineParser, ShapeError, json_type

if TYPE_CHECKING:
    from monologue.events import Event

__all__ = ["HookLogParser", "hook_events"]

_TOOL_HOOKS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})


class HookLogParser(LineParser):
    """A file of Claude Code hook payloads (JSONL)."""

    format = "claude-code-hooks"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._unanswered: defaultdict[str, deque[str]] = defaultdict(deque)
        self._numbered = 0

    def interpret(self, obj: dict[str, Any]) -> list[Event]:
        hook = obj.get("hook_event_name")
        if not isinstance(hook, str):
            problem = "Field required" if hook is None else f"got {json_type(hook)}"
            raise ShapeError(f"hook_event_name: {problem}")
        converter = self.converter
        if hook in _TOOL_HOOKS:
            return hook_events(converter, obj, self._tool_use_id(hook, obj))
        if hook == "UserPromptSubmit":
            prompt = obj.get("prompt")
            return converter.user_text(prompt) if isinstance(prompt, str) else []
        last = obj.get("last_assistant_message")
        said = last if isinstance(last, str) and last.strip() else None
        if hook == "SubagentStop":
            agent_id, agent_type = obj.get("agent_id"), obj.get("agent_type")
            # An untyped "sub-agent" is Claude Code's prompt-suggestion fork, not a helper.
            if said is None or not agent_id or not agent_type:
                return []
            agent = converter.sidechain(str(agent_id), None, str(agent_type))
            return converter.message_text(said, agent)
        if hook == "Stop":
            words = converter.message_text(said) if said else []
            return [*words, *converter.completion(None)]
        return []

    def _tool_use_id(self, hook: str, obj: dict[str, Any]) -> str:
        """The payload's ``tool_use_id``; without one, a number for a call, and for a
        result the number of the earliest unanswered call of the same tool and input."""
        found = obj.get("tool_use_id")
        if isinstance(found, str) and found:
            return found
        key = json.dumps([obj.get("tool_name"), obj.get("tool_input")], sort_keys=True)
        waiting = self._unanswered[key]
        if hook != "PreToolUse" and waiting:
            return waiting.popleft()
        self._numbered += 1
        number = f"hook-call-{self._numbered}"
        if hook == "PreToolUse":
            waiting.append(number)
        return number


def hook_events(
    converter: Converter, input_data: dict[str, Any], tool_use_id: str | None = None
) -> list[Event]:
    """The events of one hook payload about a tool call (``PreToolUse``, ``PostToolUse``,
    ``PostToolUseFailure``; others have none), attributed to the sub-agent it fired in."""
    hook = input_data.get("hook_event_name")
    if hook not in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        return []
    tool_id = str(tool_use_id or input_data.get("tool_use_id"))
    agent = _who(converter, input_data)
    if hook == "PreToolUse":
        tool_input = input_data.get("tool_input")
        return converter.tool_call(
            str(input_data.get("tool_name", "tool")),
            tool_id,
            tool_input if isinstance(tool_input, dict) else {"input": tool_input},
            agent=agent,
        )
    failed = hook == "PostToolUseFailure"
    output = input_data.get("error") if failed else input_data.get("tool_response")
    return converter.tool_result(tool_id, tool_output(output), is_error=failed, agent=agent)


def _who(converter: Converter, input_data: dict[str, Any]) -> str:
    """The agent name for a hook that fired inside a sub-agent ('' for the main one)."""
    agent_id = input_data.get("agent_id")
    if not agent_id:
        return ""
    agent_type = input_data.get("agent_type")
    label = agent_type if isinstance(agent_type, str) and agent_type else None
    return converter.sidechain(str(agent_id), None, label)
