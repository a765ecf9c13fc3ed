"""From Claude messages to monologue events, with what must be remembered between them.

One :class:`Converter` follows one conversation. It remembers each tool call's name so that
its result can carry it, which calls launched a sub-agent (the ``Task`` / ``Agent`` tool) so
that the sub-agent's own messages are attributed to it, and which calls and results it has
already turned into events: a tool call reported twice (by an SDK hook and by the message
stream, or repeated in a transcript) becomes one event.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from monologue.digest import is_declined, is_interruption
from monologue.origins import Origin, prompt_data

from .shapes import Message, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock

if TYPE_CHECKING:
    from monologue.events import Event

SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
"""Tools whose call runs a sub-agent (Claude Code renamed ``Task`` to ``Agent``)."""

GENERIC_SUBAGENT_TYPES = frozenset({"general-purpose", ""})

Ending = Literal["completed", "interrupted", "failed", "cut_off"]

# Tools that poll or stop a background job, and the input key naming the job in each.
_JOB_KEYS = ("bash_id", "task_id", "shell_id", "agentId")
_JOB_TOOLS = frozenset({"BashOutput", "TaskOutput", "KillShell", "KillBash", "AgentOutputTool"})
_LAUNCHED = re.compile(r"running in background with ID:\s*([\w-]+)")

# User-side text that neither asks the agent anything nor answers it: whether the agent's
# turn was over is judged without it.
_ASIDES = frozenset({"command_output", "system_reminder", "side_request"})


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
        self._open_calls: set[str] = set()
        self._last: Event | None = None
        """The main agent's latest event: whether its turn was over when the file ended."""

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
        origin: Origin | None = None,
    ) -> list[Event]:
        """Events for the blocks of one message (or of one line of a split message).

        ``user_text=False`` drops what the user side says in prose (a sub-agent's prompt,
        already in its launching call; Claude Code's expansion of a slash command).
        ``origin`` is where the user side's text came from when the format says so (see
        :mod:`monologue.origins`); otherwise it is judged from the text.
        """
        if isinstance(message.content, str):
            text = message.content
            if role == "user":
                return self.user_text(text, agent, ts, origin) if user_text else []
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
                    events += self.user_text(block.text, agent, ts, origin) if user_text else []
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
        if not agent and tool_use_id not in self._answered:
            self._open_calls.add(tool_use_id)
        data = {"tool_name": tool_name, "tool_use_id": tool_use_id, "input": tool_input}
        if tool_name in _JOB_TOOLS:
            job = next(
                (tool_input[k] for k in _JOB_KEYS if isinstance(tool_input.get(k), str)), None
            )
            if job:
                data["job_id"] = job  # polls of one job are one job, however many
        return [self._event("tool_call", data, agent, ts)]

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
        self._open_calls.discard(tool_use_id)
        data = {
            "tool_use_id": tool_use_id,
            "tool_name": self._tool_names.get(tool_use_id),
            "output": output,
            "is_error": is_error,
        }
        launched = _LAUNCHED.search(output[:300]) if isinstance(output, str) else None
        if launched:
            data["job_id"] = launched.group(1)  # the background job this call started
        return [self._event("tool_result", data, agent, ts)]

    def completion(
        self,
        result: Any,
        *,
        is_error: bool = False,
        extra: dict[str, Any] | None = None,
        ts: datetime | None = None,
        ending: Ending | None = None,
    ) -> list[Event]:
        """A ``completion`` event, or none when this turn has already completed. Its
        ``ending`` is ``failed`` for an error, ``completed`` otherwise, unless given."""
        if self._completed:
            return []
        data = {
            "result": result,
            "is_error": is_error,
            **(extra or {}),
            "ending": ending or ("failed" if is_error else "completed"),
        }
        return [self._event("completion", data, "", ts)]

    def finish(self) -> list[Event]:
        """The completion of a conversation whose file has ended without one (a Claude Code
        transcript never writes one), with how it ended: ``interrupted`` when the user
        stopped the agent last, ``cut_off`` when a tool call has no result or the agent did
        not answer last, ``completed`` when its final turn is its own text. None when the
        conversation is empty or already completed."""
        last = self._last
        if last is None or self._completed:
            return []
        output = last.data.get("output") if last.type == "tool_result" else last.data.get("text")
        if last.type in ("user_message", "tool_result") and (
            is_interruption(str(output or "")) or is_declined(str(output or ""), True)
        ):
            ending: Ending = "interrupted"
        elif self._open_calls or last.type != "text":
            ending = "cut_off"
        else:
            ending = "completed"
        return self.completion(None, ending=ending, ts=last.ts)

    def message_text(self, text: str, agent: str = "", ts: datetime | None = None) -> list[Event]:
        """A ``text`` event: what the agent (or sub-agent ``agent``) said."""
        return self._text("text", text, agent, ts)

    def user_text(
        self, text: str, agent: str = "", ts: datetime | None = None, origin: Origin | None = None
    ) -> list[Event]:
        """A ``user_message`` with its ``origin`` (see :func:`monologue.origins.prompt_data`:
        a task notice carries the task's facts, a message the user typed while the agent
        worked is told in their words)."""
        if not text.strip():
            return []
        return [self._event("user_message", prompt_data(text, origin), agent, ts)]

    def _text(self, kind: str, text: str, agent: str, ts: datetime | None) -> list[Event]:
        # Claude Code opens many messages with a block of blank lines.
        if not text.strip():
            return []
        return [self._event(kind, {"text": text}, agent, ts)]

    def _event(self, kind: str, data: dict[str, Any], agent: str, ts: datetime | None) -> Event:
        from monologue.events import Event

        # Anything after a completion starts a new turn, which may complete in its turn.
        self._completed = kind == "completion"
        event = (
            Event(type=kind, data=data, agent=agent)
            if ts is None
            else Event(type=kind, data=data, agent=agent, ts=ts)
        )
        if not agent and data.get("origin") not in _ASIDES:
            self._last = event
        return event


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
    SDK hook's ``tool_response``) kept as JSON, except a sub-agent's (``Task``), whose
    ``content`` blocks are its report, and a command's, whose ``stdout`` and ``stderr`` are
    what it printed."""
    from monologue.digest import as_text

    if isinstance(content, dict) and _text_blocks(content.get("content")):
        return as_text(content["content"])
    if isinstance(content, dict) and isinstance(content.get("stdout"), str):
        # Bash's: what the command printed, as a transcript shows it.
        printed = (content["stdout"], content.get("stderr"))
        return "\n".join(part for part in printed if isinstance(part, str) and part)
    if isinstance(content, dict | int | float | bool):
        try:
            json.dumps(content)
        except (TypeError, ValueError):
            return str(content)
        return content
    return as_text(content)


def _text_blocks(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(b, dict) and b.get("type") == "text" for b in value)
    )
