"""The gate's settings: defaults, sources, and clear errors for bad values."""

from __future__ import annotations

from typing import Any

import pytest
from monologue_gate import GateSettings
from pytest_monologue import PluginSandbox

from monologue.errors import ConfigError
from monologue.settings import load_config

MODELS = {"gate": GateSettings}


def settings(**values: Any) -> GateSettings:
    return load_config(values, models=MODELS).settings(GateSettings)


def test_defaults(monologue_plugins: PluginSandbox) -> None:
    got = settings()
    assert (got.mode, got.idle_interval_s, got.window, got.controller_timeout_s) == (
        "assist",
        15.0,
        5,
        5.0,
    )


def test_values_may_arrive_as_strings(monologue_plugins: PluginSandbox) -> None:
    got = settings(gate="STRICT", idle_interval_s="2.5", gate_window="3")
    assert (got.mode, got.idle_interval_s, got.window) == ("strict", 2.5, 3)
    got = settings(gate="llm", controller_timeout_s="0.5")
    assert (got.mode, got.controller_timeout_s) == ("llm", 0.5)


def test_environment_variables(
    monologue_plugins: PluginSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONOLOGUE_GATE", "strict")
    monkeypatch.setenv("MONOLOGUE_IDLE_INTERVAL_S", "0")
    got = settings()
    assert (got.mode, got.idle_interval_s) == ("strict", 0.0)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"gate": "loud"}, "gate = 'loud' (from session() arguments): Input should be 'assist'"),
        ({"gate": 1}, "gate = 1 (from session() arguments)"),
        ({"idle_interval_s": "soon"}, "idle_interval_s = 'soon' (from session() arguments)"),
        ({"idle_interval_s": -1}, "idle_interval_s = -1 (from session() arguments): Input "),
        ({"idle_interval_s": "nan"}, "idle_interval_s = 'nan'"),
        ({"idle_interval_s": True}, "idle_interval_s = True"),
        ({"gate_window": 0}, "gate_window = 0 (from session() arguments): Input should be"),
        ({"gate_window": "five"}, "gate_window = 'five'"),
        ({"gate_window": 2.5}, "gate_window = 2.5"),
        ({"controller_timeout_s": 0}, "controller_timeout_s = 0 (from session() arguments)"),
        ({"controller_timeout_s": "later"}, "controller_timeout_s = 'later'"),
    ],
)
def test_bad_values_name_the_key_the_value_and_the_source(
    monologue_plugins: PluginSandbox, values: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        settings(**values)
    assert message in str(info.value)
