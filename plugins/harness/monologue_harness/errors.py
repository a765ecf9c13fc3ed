"""The harness's errors: each names the input that is wrong and what is wrong with it."""

from __future__ import annotations

from monologue.errors import MonologueError

__all__ = [
    "AgentOutputError",
    "AgentRunError",
    "HarnessError",
    "MissingRecordingError",
    "NotLoggedInError",
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


class AgentRunError(HarnessError):
    """The ``claude`` CLI could not be started, or died: the SDK's error, on one line."""


class NotLoggedInError(AgentRunError):
    """The ``claude`` CLI has no login and no API key. Every run would fail the same way, so
    the harness stops at the first, with what to do about it."""

    def __init__(self, agent: str, said: str) -> None:
        super().__init__(
            f"{agent}: the claude CLI could not authenticate ({said}): log in with `claude` "
            "then /login, or set ANTHROPIC_API_KEY; --replay DIR needs neither"
        )


class MissingRecordingError(HarnessError):
    """Replay asked for an agent run that was never recorded. Never a silent fallback."""

    def __init__(self, agent: str, key: str, nearest: str | None, store: str = "") -> None:
        self.agent, self.key, self.nearest = agent, key, nearest
        hint = f"; nearest recording: {nearest}" if nearest else "; no recording of this agent"
        where = f" in {store}" if store else ""
        super().__init__(
            f"no recording of agent {agent!r} for prompt hash {key}{where} (the prompt or "
            f"options changed since it was recorded?){hint}"
        )
