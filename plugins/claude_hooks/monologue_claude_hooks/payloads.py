"""From Claude Code hook payloads to monologue events, one :class:`HookSession` per Claude
session id.

The field names relied on are those of Claude Code's hooks reference (see README.md): every
payload has ``session_id`` and ``hook_event_name``; the rest may be missing in older
versions, and unknown keys are ignored.
"""

from __future__ import annotations

import json
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from monologue_claude.convert import SUBAGENT_TOOLS, Converter, tool_output
from monologue_claude.shapes import Message

from .transcript import TranscriptFollower

if TYPE_CHECKING:
    from monologue.events import Event

__all__ = ["HookPayloadError", "HookSession", "Step", "origin_of", "parse_payload"]

_PAIRING_CAP = 512
"""Calls without a ``tool_use_id`` (Claude Code 1.0) remembered for their results."""
_RECENT_TEXTS = 64
_TOOL_HOOKS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
_CALLS_CAP = 4096
"""Tool call ids remembered, to tell a result whose call was never reported."""


class HookPayloadError(ValueError):
    """A payload that is not a hook's JSON object."""


def parse_payload(data: bytes) -> dict[str, Any]:
    """The payload in ``data`` (UTF-8 JSON), or :class:`HookPayloadError` saying why not."""
    try:
        payload = json.loads(data.decode("utf-8", errors="replace"))
    except ValueError as exc:
        raise HookPayloadError(f"not JSON ({exc})") from None
    if not isinstance(payload, dict):
        raise HookPayloadError(f"a JSON {type(payload).__name__}, not an object")
    for key in ("session_id", "hook_event_name"):
        if not isinstance(payload.get(key), str) or not payload[key]:
            raise HookPayloadError(f"no {key!r}")
    return payload


_ORIGINS = (
    ("<task-notification>", "task_notification"),
    ("<system-reminder>", "system_reminder"),
    ("<command-", "command_output"),
    ("<local-command-", "command_output"),
    ("This session is being continued from a previous conversation", "compaction"),
    ("[Request interrupted by user", "interruption"),
)


def origin_of(prompt: str) -> str:
    """Where a prompt came from (the brief's ``origin`` values): Claude Code injects some."""
    start = prompt.lstrip()
    for prefix, origin in _ORIGINS:
        if start.startswith(prefix):
            return origin
    return "user"


@dataclass
class Step:
    """What one payload means: events to dispatch, and what the collector must do."""

    events: list[Event] = field(default_factory=list)
    prompt: bool = False
    """A user prompt arrived (speech is cut off)."""
    end: bool = False
    """The Claude session ended: close the monologue session."""
    result: str | None = None
    """The final assistant message, for a completion."""


def _line_holding(role: str, text: str) -> Callable[[bytes, Any], bool]:
    """Whether a transcript line is ``role``'s and holds ``text``."""

    def holds(raw: bytes, line: Any) -> bool:
        if not isinstance(line, dict) or line.get("type") != role:
            return False
        content = (line.get("message") or {}).get("content")
        if isinstance(content, str):
            return content.strip() == text
        return isinstance(content, list) and any(
            isinstance(b, dict) and str(b.get("text", "")).strip() == text for b in content
        )

    return holds


def _input(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {"input": value}


def _pairing_key(payload: dict[str, Any]) -> str:
    return json.dumps([payload.get("tool_name"), payload.get("tool_input")], sort_keys=True)


class HookSession:
    """The translation state of one Claude session: names, pairing, the transcript."""

    def __init__(self, agent: str = "claude") -> None:
        self.converter = Converter(agent)
        self.transcript: TranscriptFollower | None = None
        self._unpaired: OrderedDict[str, deque[str]] = OrderedDict()
        self._called: OrderedDict[str, None] = OrderedDict()
        self._numbered = 0
        self._prompts: deque[str] = deque(maxlen=_RECENT_TEXTS)
        self._texts: deque[str] = deque(maxlen=_RECENT_TEXTS)

    def step(self, payload: dict[str, Any]) -> Step:
        hook = payload["hook_event_name"]
        step = Step()
        # A new session's transcript is read from its start; a resumed one's old turns are
        # history, not what happens now.
        self._follow(
            payload, from_start=hook == "SessionStart" and payload.get("source") == "startup"
        )
        if hook == "SessionStart":
            return step
        if hook == "UserPromptSubmit":
            # Before reading the transcript: its copy of this prompt is then recognised.
            prompt = payload.get("prompt")
            if isinstance(prompt, str) and prompt.strip():
                self._prompts.append(prompt.strip())
                step.events += self._read_transcript(_line_holding("user", prompt.strip()))
                step.events += self._user(prompt)
                step.prompt = origin_of(prompt) == "user"
            return step
        tool_id = payload.get("tool_use_id")
        mark = json.dumps(tool_id).encode() if isinstance(tool_id, str) and tool_id else None
        if hook in _TOOL_HOOKS:
            # Up to this call's own line: what comes after it has not happened yet.
            step.events += self._read_transcript((lambda raw, _: mark in raw) if mark else None)
        elif hook == "Stop" and isinstance(payload.get("last_assistant_message"), str):
            # Up to the turn's last words: a next prompt's lines may already follow.
            said = payload["last_assistant_message"].strip()
            step.events += self._read_transcript(_line_holding("assistant", said))
        agent = self._agent(payload)
        if hook == "PreToolUse":
            step.events += self._call(payload, agent)
        elif hook in ("PostToolUse", "PostToolUseFailure"):
            tool_id = self._result_id(payload)
            if tool_id not in self._called:
                # Its PreToolUse was not seen (hooks installed mid-call, a lost payload).
                step.events += self._call(payload, agent, tool_id)
            failed = hook == "PostToolUseFailure"
            output = payload.get("error") if failed else payload.get("tool_response")
            step.events += self.converter.tool_result(
                tool_id, tool_output(output), is_error=failed, agent=agent
            )
        elif hook == "SubagentStop":
            text = payload.get("last_assistant_message")
            # An unnamed sub-agent is Claude Code's own fork (a prompt suggestion): not the
            # agent's work.
            if agent and isinstance(text, str) and text.strip():
                step.events += self._said(text, agent)
        elif hook == "Notification":
            step.events.append(self._event("hint", {"name": "user_waiting"}))
        elif hook == "PreCompact":
            step.events.append(self._event("hint", {"name": "compaction"}))
        elif hook == "Stop":
            text = payload.get("last_assistant_message")
            step.result = text if isinstance(text, str) else None
            step.events += self.converter.completion(step.result, extra={"ending": "completed"})
        elif hook == "SessionEnd":
            step.end = True
        return step

    # -- tool calls ---------------------------------------------------------------------

    def _call(self, payload: dict[str, Any], agent: str, tool_id: str | None = None) -> list[Event]:
        name = str(payload.get("tool_name") or "tool")
        tool_input = _input(payload.get("tool_input"))
        if tool_id is None:
            tool_id = payload.get("tool_use_id") or self._number(payload)
        self._called[tool_id] = None
        while len(self._called) > _CALLS_CAP:
            self._called.popitem(last=False)
        if name in SUBAGENT_TOOLS:
            # Through the converter's message path, which names the sub-agent it launches.
            block = {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
            message = Message.model_validate({"content": [block]})
            return self.converter.message(message, role="assistant", agent=agent)
        return self.converter.tool_call(name, tool_id, tool_input, agent=agent)

    def _number(self, payload: dict[str, Any]) -> str:
        """An id for a call without ``tool_use_id``, found again by its result's input."""
        self._numbered += 1
        tool_id = f"hook-{self._numbered}"
        key = _pairing_key(payload)
        self._unpaired.setdefault(key, deque()).append(tool_id)
        self._unpaired.move_to_end(key)
        while len(self._unpaired) > _PAIRING_CAP:
            self._unpaired.popitem(last=False)
        return tool_id

    def _result_id(self, payload: dict[str, Any]) -> str:
        tool_id = payload.get("tool_use_id")
        if isinstance(tool_id, str) and tool_id:
            return tool_id
        waiting = self._unpaired.get(_pairing_key(payload))
        if waiting:
            found = waiting.popleft()
            if not waiting:
                del self._unpaired[_pairing_key(payload)]
            return found
        return self._number(payload)

    # -- who and what was said ----------------------------------------------------------

    def _agent(self, payload: dict[str, Any]) -> str:
        agent_id = payload.get("agent_id")
        if not isinstance(agent_id, str) or not agent_id:
            return ""
        label = payload.get("agent_type")
        if not isinstance(label, str) or not label:
            return ""
        return self.converter.sidechain(agent_id, None, label)

    def _follow(self, payload: dict[str, Any], *, from_start: bool) -> None:
        path = payload.get("transcript_path")
        if not isinstance(path, str) or not path:
            return
        if self.transcript is None or self.transcript.path != path:
            follow = TranscriptFollower(path) if from_start else TranscriptFollower.from_end(path)
            self.transcript = follow

    def _read_transcript(self, until: Callable[[bytes, Any], bool] | None = None) -> list[Event]:
        if self.transcript is None:
            return []
        events: list[Event] = []
        for piece in self.transcript.read(until):
            if piece.role == "assistant":
                events += self._said(piece.text, "")
            elif piece.text.strip() in self._prompts:
                self._prompts.remove(piece.text.strip())  # already reported by its hook
            elif origin_of(piece.text) not in ("interruption", "command_output"):
                events += self._user(piece.text)
        return events

    def _said(self, text: str, agent: str) -> list[Event]:
        key = f"{agent}\0{text.strip()}"
        if key in self._texts:
            return []
        self._texts.append(key)
        return [self._event("text", {"text": text}, agent)]

    def _user(self, text: str) -> list[Event]:
        return [self._event("user_message", {"text": text, "origin": origin_of(text)})]

    @staticmethod
    def _event(kind: str, data: dict[str, Any], agent: str = "") -> Event:
        from monologue.events import Event

        return Event(type=kind, data=data, agent=agent)
