"""monologue-harness: a parse → code → review task harness on the Claude Agent SDK.

- :class:`ParserAgent`, :class:`CodingAgent`, :class:`ReviewAgent`: agents whose runs are
  ``claude_agent_sdk.query()`` under ``@monologue(<agent name>)``.
- :class:`TaskHarness`: dependency order, code then review with retries, checkpoints, resume.
- :func:`parse_tasks_file`: the offline reader of spec-kit tasks files.
- Agent-level recording and replay (:class:`AgentMode`, :class:`RecordingStore`).

This module is imported whenever monologue loads its plugins (``monologue --help`` too), so
everything beyond the hook implementations is imported when first used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from monologue import hookimpl

if TYPE_CHECKING:
    import click

    from monologue import Event, Session

    from .agent import Agent, AgentMode, AgentOptions
    from .agents import (
        CodingAgent,
        CodingContext,
        ParserAgent,
        ParserContext,
        ReviewAgent,
        ReviewContext,
    )
    from .errors import (
        AgentOutputError,
        AgentRunError,
        HarnessError,
        MissingRecordingError,
        NotLoggedInError,
        PromptRenderError,
        TasksFileError,
    )
    from .harness import HarnessSummary, TaskHarness
    from .models import CodingResult, ParsedTasks, Phase, ReviewVerdict, RunUsage, Task
    from .recording import AgentRecording, RecordingStore
    from .tasks_md import parse_tasks, parse_tasks_file

_LAZY = {
    "Agent": "agent",
    "AgentMode": "agent",
    "AgentOptions": "agent",
    "CodingAgent": "agents",
    "CodingContext": "agents",
    "ParserAgent": "agents",
    "ParserContext": "agents",
    "ReviewAgent": "agents",
    "ReviewContext": "agents",
    "AgentOutputError": "errors",
    "AgentRunError": "errors",
    "HarnessError": "errors",
    "MissingRecordingError": "errors",
    "NotLoggedInError": "errors",
    "PromptRenderError": "errors",
    "TasksFileError": "errors",
    "HarnessSummary": "harness",
    "TaskHarness": "harness",
    "CodingResult": "models",
    "ParsedTasks": "models",
    "Phase": "models",
    "ReviewVerdict": "models",
    "RunUsage": "models",
    "Task": "models",
    "AgentRecording": "recording",
    "RecordingStore": "recording",
    "parse_tasks": "tasks_md",
    "parse_tasks_file": "tasks_md",
}

__all__ = [
    "Agent",
    "AgentMode",
    "AgentOptions",
    "AgentOutputError",
    "AgentRecording",
    "AgentRunError",
    "CodingAgent",
    "CodingContext",
    "CodingResult",
    "HarnessError",
    "HarnessSummary",
    "MissingRecordingError",
    "NotLoggedInError",
    "ParsedTasks",
    "ParserAgent",
    "ParserContext",
    "Phase",
    "PromptRenderError",
    "RecordingStore",
    "ReviewAgent",
    "ReviewContext",
    "ReviewVerdict",
    "RunUsage",
    "Task",
    "TaskHarness",
    "TasksFileError",
    "parse_tasks",
    "parse_tasks_file",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


@hookimpl
def narrate(session: Session, events: list[Event], history: list[str], reason: str) -> str | None:
    """Replay narrator: the narratives recorded with the run, one per turn, in order.

    Selected only by replayed agent runs whose recording has narratives (``narrator=
    "harness"``), so a replay narrates byte for byte what the recorded run narrated.
    """
    from collections import deque

    from .agent import REPLAY_STATE

    recorded = session.state.get(REPLAY_STATE)
    if isinstance(recorded, deque) and recorded:
        return str(recorded.popleft())
    return None


@hookimpl
def register_event_types(register: Callable[..., None]) -> None:
    """``status``: harness progress, internal, recorded, never narrated (the agents are)."""
    from .models import StatusData

    register("status", StatusData, narrated=False)


@hookimpl
def register_commands(cli: click.Group) -> None:
    from .cli import harness, prompts

    cli.add_command(harness)
    cli.add_command(prompts)
