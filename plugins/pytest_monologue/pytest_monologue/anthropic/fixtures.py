"""pytest fixtures for code that narrates with Claude, without leaving the machine.

Registered by pytest-monologue's pytest plugin, so any test suite with pytest-monologue
installed can use them (``anthropic_narrator`` also needs monologue-anthropic installed):

- ``loopback_api``: a running :class:`~pytest_monologue.anthropic.LoopbackAPI`, with
  ``ANTHROPIC_BASE_URL`` pointing at it and a dummy ``ANTHROPIC_API_KEY`` for the test;
- ``anthropic_narrator``: the same, plus this plugin loaded through its entry point into
  the test's isolated plugin manager (``monologue_plugins``) and selected as narrator.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_monologue import PluginSandbox

    from .server import LoopbackAPI

from .server import DUMMY_API_KEY

__all__ = ["anthropic_narrator", "loopback_api"]


@pytest.fixture
def loopback_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[LoopbackAPI]:
    """A loopback Messages API server the SDK talks to for the duration of the test."""
    from .server import LoopbackAPI

    with LoopbackAPI() as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", DUMMY_API_KEY)
        yield api


@pytest.fixture
def anthropic_narrator(
    monologue_plugins: PluginSandbox, loopback_api: LoopbackAPI, monkeypatch: pytest.MonkeyPatch
) -> LoopbackAPI:
    """The loopback server, with this plugin loaded and selected as the narrator."""
    monologue_plugins.load("anthropic")
    monkeypatch.setenv("MONOLOGUE_NARRATOR", "anthropic")
    return loopback_api
