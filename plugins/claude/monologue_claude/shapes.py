"""The shapes of what Claude Code writes, as far as monologue reads them.

Only the fields that become events are declared; everything else is allowed and ignored, so
a newer Claude Code that adds fields still reads. A declared field of the wrong type is an
error that names the field (``message.content.0.tool_use.input: Input should be a valid
dictionary``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    Tag,
    field_validator,
)


class _Shape(BaseModel):
    model_config = ConfigDict(extra="allow")


class TextBlock(_Shape):
    type: Literal["text"]
    text: str


class ThinkingBlock(_Shape):
    type: Literal["thinking"]
    thinking: str


class ToolUseBlock(_Shape):
    """``tool_use``, or ``server_tool_use`` for tools the API runs itself (web search...)."""

    type: str
    id: str
    name: str
    input: dict[str, Any] = Field(default_factory=dict)


class ToolResultBlock(_Shape):
    """``tool_result``, or a server tool's ``*_tool_result``."""

    type: str
    tool_use_id: str
    content: Any = None
    is_error: StrictBool | None = None


class OtherBlock(_Shape):
    """Images, documents, redacted thinking...: nothing to narrate."""

    type: str


def _block_kind(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else None
    if kind in ("text", "thinking"):
        return str(kind)
    if kind in ("tool_use", "server_tool_use"):
        return "tool_use"
    if isinstance(kind, str) and kind.endswith("tool_result"):
        return "tool_result"
    return "other"


ContentBlock = Annotated[
    Annotated[TextBlock, Tag("text")]
    | Annotated[ThinkingBlock, Tag("thinking")]
    | Annotated[ToolUseBlock, Tag("tool_use")]
    | Annotated[ToolResultBlock, Tag("tool_result")]
    | Annotated[OtherBlock, Tag("other")],
    Discriminator(_block_kind),
]


def _content_kind(value: Any) -> str:
    return "str" if isinstance(value, str) else "list"


Content = Annotated[
    Annotated[str, Tag("str")] | Annotated[list[ContentBlock], Tag("list")],
    Discriminator(_content_kind),
]

UNION_TAGS = frozenset({"str", "list", "text", "thinking", "tool_use", "tool_result", "other"})
"""Names the tagged unions above add to an error's location (``content.list.0.tool_use``)."""


class Message(_Shape):
    """An Anthropic API message as Claude Code stores it (``message`` of a line)."""

    id: str | None = None
    model: str | None = None
    content: Content


class ChatLine(_Shape):
    """A ``user`` or ``assistant`` line: of a transcript, of stream-json, or nested."""

    type: Literal["user", "assistant"]
    message: Message
    timestamp: datetime | None = None
    isSidechain: StrictBool = False
    isMeta: StrictBool = False
    isCompactSummary: StrictBool = False
    agentId: str | None = None
    parent_tool_use_id: str | None = None

    @field_validator("timestamp")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        # Claude Code writes UTC with a "Z"; a timestamp without a zone is taken as UTC too.
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


class QueuedCommand(_Shape):
    """``attachment`` of an ``attachment`` line whose type is ``queued_command``: a message
    typed while the agent worked, handed to it mid-turn."""

    type: Literal["queued_command"]
    prompt: Content


class AttachmentLine(_Shape):
    """An ``attachment`` line carrying a queued message."""

    type: Literal["attachment"]
    timestamp: datetime | None = None
    isSidechain: StrictBool = False
    attachment: QueuedCommand


class AgentProgress(_Shape):
    """``data`` of a ``progress`` line whose ``data.type`` is ``agent_progress``."""

    type: Literal["agent_progress"]
    agentId: str | None = None
    message: ChatLine | None = None


class ProgressLine(_Shape):
    """A ``progress`` line that carries one message of a sub-agent."""

    type: Literal["progress"]
    timestamp: datetime | None = None
    parentToolUseID: str | None = None
    data: AgentProgress


class ResultLine(_Shape):
    """stream-json's last message of a run (the SDK's ``ResultMessage``)."""

    type: Literal["result"]
    subtype: str | None = None
    is_error: StrictBool = False
    result: str | None = None
    num_turns: int | None = None
    duration_ms: float | None = None
    total_cost_usd: float | None = None
    cost_usd: float | None = None
