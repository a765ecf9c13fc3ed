"""The gate's configuration keys: defaults, sources, and clear errors for bad values."""

from __future__ import annotations

from typing import Any

import pytest
from monologue_gate import GateSettings

from monologue.settings import load_config
from monologue.errors import ConfigError
from monologue.testing import PluginSandbox


def settings(**values: Any) -> GateSettings:
    return GateSettings.from_config(load_config(values))


def test_defaults(monologue_plugins: PluginSandbox) -> None:
    assert settings() == GateSettings(mode="assist", idle_interval_s=15.0, window=5)


def test_values_may_arrive_as_strings(monologue_plugins: PluginSandbox) -> None:
    got = settings(gate="STRICT", idle_interval_s="2.5", gate_window="3")
    assert got == GateSettings(mode="strict", idle_interval_s=2.5, window=3)
    got = settings(gate="llm", controller_timeout_s="0.5")
    assert got == GateSettings(mode="llm", controller_timeout_s=0.5)


def test_environment_variables(
    monologue_plugins: PluginSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONOLOGUE_GATE", "strict")
    monkeypatch.setenv("MONOLOGUE_IDLE_INTERVAL_S", "0")
    assert settings() == GateSettings(mode="strict", idle_interval_s=0.0)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"gate": "loud"}, "gate = 'loud': must be 'assist', 'strict' or 'llm'"),
        ({"gate": 1}, "gate = 1: must be 'assist', 'strict' or 'llm'"),
        ({"idle_interval_s": "soon"}, "idle_interval_s = 'soon': must be a number of seconds"),
        ({"idle_interval_s": -1}, "idle_interval_s = -1: must be a number of seconds >= 0"),
        ({"idle_interval_s": "nan"}, "idle_interval_s = 'nan'"),
        ({"idle_interval_s": True}, "idle_interval_s = True"),
        ({"gate_window": 0}, "gate_window = 0: must be a whole number of events >= 1"),
        ({"gate_window": "five"}, "gate_window = 'five'"),
        ({"gate_window": 2.5}, "gate_window = 2.5"),
        ({"controller_timeout_s": 0}, "controller_timeout_s = 0: must be a number of seconds > 0"),
        ({"controller_timeout_s": "later"}, "controller_timeout_s = 'later'"),
    ],
)
def test_bad_values_name_the_key_and_the_value(
    monologue_plugins: PluginSandbox, values: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        settings(**values)
    assert message in str(info.value)
    key = next(iter(values))
    assert f"MONOLOGUE_{key.upper()}" in str(info.value)
