"""Fixtures of the end-to-end tests (helpers are in ``e2e_support``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_support import clean_environ


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A user's environment with nothing configured; data goes under ``tmp_path/data``."""
    return clean_environ(MONOLOGUE_NO_CONFIG_FILE="1", MONOLOGUE_DATA_DIR=str(tmp_path / "data"))
