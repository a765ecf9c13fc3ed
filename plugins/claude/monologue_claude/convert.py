"""From Claude messages to monologue events, with what must be remembered between them.

One :class:`Converter` follows one conversation. It remembers each tool call's name so that
its result can carry it, which calls launched a sub-agent (the ``Task`` / ``Agent`` tool) so
that the sub-agent's own messages are attributed to it, and which calls and results it has
already turned into events: a tool call reported twice (by an SDK hook and by the message
stream, or repeated in a transcript) becomes one event.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .shapes import Message, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock

if TYPE_CHECKING:
    from monologue.events import Event

SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
"""Tools whose call runs a sub-agent (Claude Code renamed ``Task`` to ``Agent``)."""

GENERIC_SUBAGENT_TYPES = frozenset({"general-purpose", ""})

# User text Claude Code writes itself around slash commands: not something the user said.
_COMMAND_MARKUP = ("<command-", "<local-command-")


class Converter:
    """Turns the messages of one conversation into events.

    ``agent`` names the main agent; sub-agents are named ``<agent>/<label>``, the label being
    the sub-agent's ``subagent_type`` (unless it is the generic ``general-purpose``), else the
    call's ``description``, made unique with `` #2``, `` #3``... Events of the main agent
    carry no agent name: the session that receives them fills in its own.
    """

    def __init__(self, agent: str = "claude") -> None:
        self.agent = agent
        self._tool_names: dict[str, str] = {}
        self._subagents: dict[str, str] = {}
        self._labels: set[str] = set()
        self._prompts: dict[str, str] = {}
        self._sidechains: dict[str, str] = {}
        self._answered: set[str] = set()
        self._completed = False

    # -- attribution ----------------------------------------------------------------------

    def subagent(self, launched_by: str | None) -> str:
        """The agent name of the sub-agent that tool call ``launched_by`` started."""
        if launched_by is None:
            return ""
        name = self._subagents.get(launched_by)
        if name is None:
            # Its launching call is not in this file (it started before the recording).
            name = self._subagents[launched_by] = self._unique("subagent")
        return name

    def sidechain(self, key: str | None, prompt: str | None, label: str | None = None) -> str:
        """The agent name of the sub-agent with id ``key`` (an ``agentId``).

        Older Claude Code writes sub-agents as sidechain lines that start with the
        sub-agent's prompt: the ``Task`` call that sent exactly that prompt is the one they
        belong to. Otherwise the sub-agent is named after ``label`` (its type, from an SDK
        hook) or its id.
        """
        key = key or "sidechain"
        launched_by = self._prompts.pop(prompt, None) if prompt else None
        if launched_by is not None:
            self._sidechains[key] = self.subagent(launched_by)
        elif key not in self._sidechains:
            self._sidechains[key] = self._unique(label or key)
        return self._sidechains[key]

    def bind_sidechain(self, key: str, launched_by: str | None) -> None:
        """Attribute sub-agent ``key``'s lines to the sub-agent that call ``launched_by``
        started (already seen), when that is known and ``key`` is not attributed yet."""
        if key in self._sidechains or launched_by not in self._subagents:
            return
        self._sidechains[key] = self._subagents[launched_by]
        for prompt, call in list(self._prompts.items()):
            if call == launched_by:
                del self._prompts[prompt]

    def _launch(self, block: ToolUseBlock) -> None:
        self._subagents[block.id] = self._unique(launch_label(block.input) or "subagent")
        prompt = block.input.get("prompt")
        if isinstance(prompt, str):
            self._prompts[prompt] = block.id

    def _unique(self, label: str) -> str:
        name = f"{self.agent}/{label}"
        number = 1
        while name in self._labels:
            number += 1
            name = f"{self.agent}/{label} #{number}"
        self._labels.add(name)
        return name

    # -- events -----------------------------------------------------------------------------

    def message(
        self,
        message: Message,
        *,
        role: str,
        agent: str = "",
        ts: datetime | None = None,
        user_text: bool = True,
    ) -> list[Event]:
        """Events for the blocks of one message (or of one line of a split message).

        ``user_text=False`` drops what the user side says in prose (a sub-agent's prompt,
        already in its launching call; Claude Code's slash-command markup).
        """
        if isinstance(message.content, str):
            text = message.content
            if role == "user":
                return self._user_text(text, agent, ts) if user_text else []
            return self._text("text", text, agent, ts)
        events: list[Event] = []
        for block in message.content:
            if isinstance(block, ToolUseBlock):
                if block.name in SUBAGENT_TOOLS and block.id not in self._subagents:
                    self._launch(block)
                events += self.tool_call(block.name, block.id, block.input, agent=agent, ts=ts)
            elif isinstance(block, ToolResultBlock):
                events += self.tool_result(
                    block.tool_use_id,
                    tool_output(block.content),
                    is_error=bool(block.is_error),
                    agent=agent,
                    ts=ts,
                )
            elif isinstance(block, ThinkingBlock):
                events += self._text("thinking", block.thinking, agent, ts)
            elif isinstance(block, TextBlock):
                if role == "user":
                    events += self._user_text(block.text, agent, ts) if user_text else []
                else:
                    events += self._text("text", block.text, agent, ts)
        return events

    def tool_call(
        self,
        tool_name: str,
        tool_use_id: str,
        tool_input: dict[str, Any],
        *,
        agent: str = "",
        ts: datetime | None = None,
    ) -> list[Event]:
        """A ``tool_call`` event, or none when this call was already reported."""
        if tool_use_id in self._tool_names:
            return []
        self._tool_names[tool_use_id] = tool_name
        return [
            self._event(
                "tool_call",
                {"tool_name": tool_name, "tool_use_id": tool_use_id, "input": tool_input},
                agent,
                ts,
            )
        ]

    def tool_result(
        self,
        tool_use_id: str,
        output: Any,
        *,
        is_error: bool = False,
        agent: str = "",
        ts: datetime | None = None,
    ) -> list[Event]:
        """A ``tool_result`` event named after its call, or none when already reported."""
        if tool_use_id in self._answered:
            return []
        self._answered.add(tool_use_id)
        data = {
            "tool_use_id": tool_use_id,
            "tool_name": self._tool_names.get(tool_use_id),
            "output": output,
            "is_error": is_error,
        }
        return [self._event("tool_result", data, agent, ts)]

    def completion(
        self,
        result: Any,
        *,
        is_error: bool = False,
        extra: dict[str, Any] | None = None,
        ts: datetime | None = None,
    ) -> list[Event]:
        """A ``completion`` event, or none when this turn has already completed."""
        if self._completed:
            return []
        data = {"result": result, "is_error": is_error, **(extra or {})}
        return [self._event("completion", data, "", ts)]

    def _user_text(self, text: str, agent: str, ts: datetime | None) -> list[Event]:
        if text.lstrip().startswith(_COMMAND_MARKUP):
            return []
        return self._text("user_message", text, agent, ts)

    def _text(self, kind: str, text: str, agent: str, ts: datetime | None) -> list[Event]:
        # Claude Code opens many messages with a block of blank lines.
        if not text.strip():
            return []
        return [self._event(kind, {"text": text}, agent, ts)]

    def _event(self, kind: str, data: dict[str, Any], agent: str, ts: datetime | None) -> Event:
        from monologue.events import Event

        # Anything after a completion starts a new turn, which may complete in its turn.
        self._completed = kind == "completion"
        if ts is None:
            return Event(type=kind, data=data, agent=agent)
        return Event(type=kind, data=data, agent=agent, ts=ts)


def launch_label(tool_input: dict[str, Any]) -> str | None:
    """How a ``Task`` / ``Agent`` call names its sub-agent: its ``subagent_type`` unless it
    is the generic ``general-purpose``, else its ``description``."""
    for key in ("subagent_type", "description"):
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip() and value not in GENERIC_SUBAGENT_TYPES:
            return " ".join(value.split())
    return None


def tool_output(content: Any) -> Any:
    """A tool result as events carry it: content blocks as their text, structured output (an
    SDK hook's ``tool_response``) kept as JSON."""
    from monologue.digest import as_text

    if isinstance(content, dict | int | float | bool):
        try:
            json.dumps(content)
        except (TypeError, ValueError):
            return str(content)
        return content
    return as_text(content)
