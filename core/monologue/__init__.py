"""monologue: first-person narration of what AI agents do.

The public names are imported lazily (PEP 562), so that ``from monologue import hookimpl``
in a plugin, or ``monologue --help``, does not pay for pydantic and the pipeline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports

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
    "lazy_exports",
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
    "MonologueConfig": "settings",
    "load_config": "settings",
    "Narration": "events._narration",
    "Session": "pipeline._session",
    "current": "pipeline._session",
    "session": "pipeline._session",
    "SkillCall": "events._skills",
    "SkillResult": "events._skills",
    "SkillSpec": "events._skills",
    "emit": "pipeline._emitter",
    "monologue": "pipeline._decorator",
    # pluggy loads with the markers, when a plugin or the plugin manager first needs them.
    "hookimpl": "_markers",
    "hookspec": "_markers",
}

if TYPE_CHECKING:
    from ._markers import hookimpl, hookspec
    from .errors import ConfigError, MonologueError, NarratorUnavailable, RecordingError
    from .events import Event, RecordingHeader, Usage
    from .events._narration import Narration
    from .events._skills import SkillCall, SkillResult, SkillSpec
    from .pipeline._decorator import monologue
    from .pipeline._emitter import emit
    from .pipeline._session import Session, current, session
    from .settings import MonologueConfig, load_config


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
