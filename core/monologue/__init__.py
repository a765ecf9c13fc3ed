"""monologue: first-person narration of what AI agents do.

The public names are imported lazily (PEP 562), so that ``from monologue import hookimpl``
in a plugin, or ``monologue --help``, does not pay for pydantic and the pipeline.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .markers import hookimpl, hookspec

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "Event",
    "MonologueConfig",
    "MonologueError",
    "Narration",
    "NarratorUnavailable",
    "RecordingError",
    "RecordingHeader",
    "Session",
    "SkillCall",
    "SkillResult",
    "SkillSpec",
    "Usage",
    "__version__",
    "current",
    "emit",
    "hookimpl",
    "hookspec",
    "load_config",
    "monologue",
    "session",
]

_LAZY = {
    "ConfigError": "errors",
    "MonologueError": "errors",
    "NarratorUnavailable": "errors",
    "RecordingError": "errors",
    "Event": "events",
    "RecordingHeader": "events",
    "Usage": "events",
    "MonologueConfig": "config",
    "load_config": "config",
    "Narration": "narration",
    "Session": "sessions",
    "current": "sessions",
    "session": "sessions",
    "SkillCall": "skills",
    "SkillResult": "skills",
    "SkillSpec": "skills",
    "emit": "emitter",
    "monologue": "decorator",
}

if TYPE_CHECKING:
    from .config import MonologueConfig, load_config
    from .decorator import monologue
    from .emitter import emit
    from .errors import ConfigError, MonologueError, NarratorUnavailable, RecordingError
    from .events import Event, RecordingHeader, Usage
    from .narration import Narration
    from .sessions import Session, current, session
    from .skills import SkillCall, SkillResult, SkillSpec


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'monologue' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
