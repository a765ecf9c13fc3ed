"""The harness's errors: each names the input that is wrong and what is wrong with it."""

from __future__ import annotations

from monologue.errors import MonologueError

__all__ = [
    "AgentOutputError",
    "HarnessError",
    "MissingRecordingError",
    "PromptRenderError",
    "TasksFileError",
]


class HarnessError(MonologueError):
    """Base of the harness's errors."""


class TasksFileError(HarnessError):
    """A tasks file that cannot be read or parsed (names the file and line)."""


class PromptRenderError(HarnessError):
    """A prompt template that cannot be rendered (names the template and the variable)."""


class AgentOutputError(HarnessError):
    """An agent run that ended without the structured result its agent declares."""


class MissingRecordingError(HarnessError):
    """Replay asked for an agent run that was never recorded. Never a silent fallback."""

    def __init__(self, agent: str, key: str, nearest: str | None) -> None:
        self.agent, self.key, self.nearest = agent, key, nearest
        hint = f"; nearest recording: {nearest}" if nearest else "; no recording of this agent"
        super().__init__(
            f"no recording of agent {agent!r} for prompt hash {key} (the prompt or options "
            f"changed since it was recorded?){hint}"
        )
