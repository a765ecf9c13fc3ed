"""The guard every test of this plugin runs under (``loopback_only`` in anthropic_fixtures)."""

from __future__ import annotations

import anthropic
import pytest


def test_nothing_beyond_loopback_is_reachable(loopback_only: list[object]) -> None:
    """The guard every test here runs under: the SDK's default endpoint fails unreached."""
    client = anthropic.Anthropic(api_key="k", max_retries=0)
    with pytest.raises(anthropic.APIConnectionError):
        client.messages.create(model="m", max_tokens=5, messages=[{"role": "user", "content": "x"}])
    assert loopback_only == ["api.anthropic.com"]
