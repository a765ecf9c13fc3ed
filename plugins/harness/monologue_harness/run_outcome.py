"""What one agent run's SDK messages add up to: its structured output, the files it wrote,
and the tokens and cost its result message reports."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .errors import AgentOutputError
from .models import RunUsage

__all__ = ["RunOutcome"]

_WRITING_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
_STRUCTURED_TOOL = "StructuredOutput"


@dataclass(frozen=True)
class RunOutcome:
    agent: str
    result: Any
    """The SDK's ``ResultMessage``."""
    tool_calls: tuple[tuple[str, str, dict[str, Any]], ...]
    """``(tool_use_id, name, input)`` of every tool use, in order."""
    failed_tool_ids: frozenset[str]

    @classmethod
    def of(cls, agent: str, messages: Iterable[Any]) -> RunOutcome:
        result = None
        calls: list[tuple[str, str, dict[str, Any]]] = []
        failed: set[str] = set()
        for message in messages:
            kind = type(message).__name__
            if kind == "ResultMessage":
                result = message
            elif kind in ("AssistantMessage", "UserMessage") and isinstance(message.content, list):
                for block in message.content:
                    if type(block).__name__ == "ToolUseBlock":
                        calls.append((block.id, block.name, dict(block.input)))
                    elif type(block).__name__ == "ToolResultBlock" and block.is_error:
                        failed.add(block.tool_use_id)
        if result is None:
            raise AgentOutputError(f"{agent}: the run ended without a result message")
        if result.is_error:
            raise AgentOutputError(
                f"{agent}: the run failed ({result.subtype}): {result.result or 'no detail'}"
            )
        return cls(agent, result, tuple(calls), frozenset(failed))

    def structured_output(self) -> dict[str, Any]:
        """The run's structured output: the result message's, else the input of its last
        ``StructuredOutput`` tool call (recordings made before the SDK reported it)."""
        output = getattr(self.result, "structured_output", None)
        if isinstance(output, dict):
            return dict(output)
        for _, name, tool_input in reversed(self.tool_calls):
            if name == _STRUCTURED_TOOL:
                return dict(tool_input)
        raise AgentOutputError(f"{self.agent}: the run ended without a structured output")

    @property
    def files_changed(self) -> list[str]:
        """Files written by tool calls that did not fail, in first-write order."""
        seen: dict[str, None] = {}
        for tool_id, name, tool_input in self.tool_calls:
            path = tool_input.get("file_path") or tool_input.get("notebook_path")
            if name in _WRITING_TOOLS and tool_id not in self.failed_tool_ids and path:
                seen.setdefault(str(path), None)
        return list(seen)

    @property
    def usage(self) -> RunUsage:
        usage = self.result.usage or {}
        return RunUsage(
            input_tokens=sum(
                int(usage.get(k) or 0)
                for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
            ),
            output_tokens=int(usage.get("output_tokens") or 0),
            cost_usd=float(self.result.total_cost_usd or 0.0),
            duration_ms=int(self.result.duration_ms or 0),
        )
