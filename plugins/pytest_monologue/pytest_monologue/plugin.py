"""The pytest plugin (entry point ``pytest11``): every fixture pytest-monologue offers.

pytest registers the fixtures it finds on this module, wherever they are defined.
"""

from __future__ import annotations

from ._sandbox import mock_narrator, monologue_cli, monologue_plugins
from .anthropic.fixtures import anthropic_narrator, loopback_api

__all__ = [
    "anthropic_narrator",
    "loopback_api",
    "mock_narrator",
    "monologue_cli",
    "monologue_plugins",
]
