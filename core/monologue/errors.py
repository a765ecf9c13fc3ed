"""Exceptions that cross the public boundary."""

from __future__ import annotations

from pathlib import Path


class MonologueError(Exception):
    """Base class of every error monologue raises on purpose."""


class ConfigError(MonologueError, ValueError):
    """A configuration value is invalid; the message names the field and its source."""


class PluginLoadError(MonologueError):
    """A plugin could not be loaded or registered (raised in strict mode, or on a bad hookimpl)."""


class NarratorUnavailable(ConfigError):
    """The configured narrator cannot run (not installed, or missing what it needs)."""


class EventValidationError(MonologueError, ValueError):
    """An event or recording header does not match the envelope; ``field`` names the culprit."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class RecordingError(MonologueError, ValueError):
    """A recording or transcript could not be read at a given line.

    The message always reads ``<path>:<line>: <problem>`` so that a user can open the file
    at the right place; ``line`` is 1-based and ``None`` when the problem is the whole file.
    """

    def __init__(self, path: str | Path, line: int | None, problem: str) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {problem}")
        self.path = Path(path)
        self.line = line
        self.problem = problem
