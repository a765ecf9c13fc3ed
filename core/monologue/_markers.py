"""The pluggy markers of the ``monologue`` project.

Plugins import ``hookimpl`` from :mod:`monologue`, never from pluggy, so the project name
lives in exactly one place.
"""

from __future__ import annotations

import pluggy

PROJECT_NAME = "monologue"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)
