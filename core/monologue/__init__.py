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
    "Narration": "_narration",
    "Session": "_sessions",
    "current": "_sessions",
    "session": "_sessions",
    "SkillCall": "_skills",
    "SkillResult": "_skills",
    "SkillSpec": "_skills",
    "emit": "_emitter",
    "monologue": "_decorator",
    # pluggy loads with the markers, when a plugin or the plugin manager first needs them.
    "hookimpl": "_markers",
    "hookspec": "_markers",
}

if TYPE_CHECKING:
    from ._decorator import monologue
    from ._emitter import emit
    from ._markers import hookimpl, hookspec
    from ._narration import Narration
    from ._sessions import Session, current, session
    from ._skills import SkillCall, SkillResult, SkillSpec
    from .errors import ConfigError, MonologueError, NarratorUnavailable, RecordingError
    from .events import Event, RecordingHeader, Usage
    from .settings import MonologueConfig, load_config


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
