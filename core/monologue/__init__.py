"""monologue: first-person narration of what AI agents do.

The public names are imported lazily (PEP 562), so that ``from monologue import hookimpl``
in a plugin, or ``monologue --help``, does not pay for pydantic and the pipeline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .lazy import lazy_exports
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


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
