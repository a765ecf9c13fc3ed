"""Exceptions that cross the public boundary."""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "ConfigError",
    "EventValidationError",
    "MonologueError",
    "NarratorFailure",
    "NarratorUnavailable",
    "NotMyFormat",
    "PluginLoadError",
    "RecordingError",
    "UnknownFormat",
]


class MonologueError(Exception):
    """Base class of every error monologue raises on purpose."""


class ConfigError(MonologueError, ValueError):
    """A configuration value is invalid; the message names the field and its source."""


class PluginLoadError(MonologueError):
    """A plugin could not be loaded or registered (raised in strict mode, or on a bad hookimpl)."""


class NarratorFailure(MonologueError):
    """An expected failure of a narrator: the service refused (429, 529, 5xx), timed out or
    could not be reached. Narrator plugins raise a subclass of it for such failures; the
    core logs one WARNING line (what failed, what happens next) and keeps the traceback for
    DEBUG. Any other exception from ``narrate`` is reported as a bug, with its traceback."""


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


class NotMyFormat(MonologueError):
    """Raised by a ``load_session`` (or ``line_parser``) implementation instead of returning
    ``None``, to say why a file is not in its format (``"not JSON: starts with 'diff'"``,
    ``"a JSON object without 'trajectory'"``). Returning ``None`` still works; the reason just
    makes the "unknown format" error say why each reader refused."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class UnknownFormat(RecordingError):
    """No installed reader recognised a file. ``refusals`` maps each reader (plugin name) to
    why it refused; the message lists them, one per line."""

    def __init__(self, path: str | Path, refusals: dict[str, str]) -> None:
        if refusals:
            tried = "".join(f"\n  - {name}: {why}" for name, why in refusals.items())
            problem = f"unknown format; the readers tried said:{tried}"
        else:
            problem = "unknown format: no reader plugin is installed"
        super().__init__(path, None, problem)
        self.refusals = dict(refusals)
