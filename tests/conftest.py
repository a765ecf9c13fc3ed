"""Core tests use throwaway plugins registered in an isolated plugin manager
(``monologue_plugins`` from ``pytest_monologue``), never whatever happens to be installed."""

from __future__ import annotations

import pytest
from throwaway_plugins import CollectEvents


@pytest.fixture
def collect(monologue_plugins) -> CollectEvents:
    return monologue_plugins.register(CollectEvents(), "collect")
