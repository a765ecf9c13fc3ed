"""Every installed plugin's settings model, through the one registry: listed by ``monologue
config``, an unknown key refused with a suggestion, a bad value handled one way (a session
warns and runs on the default, the CLI errors in one line) and a session's override
honoured."""

from __future__ import annotations

import json
import logging
import typing
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic import BaseModel, ValidationError

import monologue
from monologue.cli import cli
from monologue.errors import ConfigError
from monologue.plugins import get_plugin_manager
from monologue.settings import load_config
from monologue.settings._validate import keys

MODELS = get_plugin_manager().hooks.settings_models()
# Strings, as the environment gives them.
BAD_CANDIDATES = ("not-a-number", "maybe", "-1", "0")


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in [n for n in __import__("os").environ if n.startswith("MONOLOGUE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("MONOLOGUE_NO_CONFIG_FILE", "1")
    monkeypatch.setenv("MONOLOGUE_DATA_DIR", str(tmp_path / "data"))


def test_the_first_party_plugins_declare_their_settings() -> None:
    assert {"anthropic", "buffer", "claude_hooks", "gate", "recorder", "runtime", "skills"} <= set(
        MODELS
    )


def a_bad_value(model: type[BaseModel]) -> tuple[str, Any]:
    """A key of ``model`` and a value it refuses."""
    for key, name in keys(model).items():
        for value in BAD_CANDIDATES:
            try:
                model.model_validate({name: value})
            except ValidationError:
                return key, value
    raise AssertionError(f"{model.__name__} refuses none of {BAD_CANDIDATES}")


def field_of(model: type[BaseModel], key: str) -> str:
    """The field behind setting ``key``."""
    name = keys(model)[key]
    return next(f for f, info in model.model_fields.items() if (info.alias or f) == name)


def another_value(model: type[BaseModel], field: str, tmp_path: Path) -> Any:
    """A valid value for ``field`` that is not its default."""
    info = model.model_fields[field]
    default = info.get_default(call_default_factory=True)
    kind = info.annotation
    choices = typing.get_args(kind) if typing.get_origin(kind) is typing.Literal else ()
    if choices:
        return next(choice for choice in choices if choice != default)
    if isinstance(default, bool):
        return not default
    if isinstance(default, int | float) and not isinstance(default, bool):
        return type(default)(default + 1)
    if field == "store":
        return "postgresql://monologue@127.0.0.1:1/none"
    return str(tmp_path / "elsewhere")


@pytest.mark.parametrize("plugin", sorted(MODELS))
def test_every_setting_is_listed_with_its_plugin_and_source(plugin: str) -> None:
    result = CliRunner().invoke(cli, ["config", "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    for key in keys(MODELS[plugin]):
        assert shown[key]["plugin"] == plugin
        assert shown[key]["source"] == "default"


@pytest.mark.parametrize("plugin", sorted(MODELS))
def test_an_unknown_key_is_refused_with_a_suggestion(
    plugin: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = sorted(keys(MODELS[plugin]))[0]
    typo = key + key[-1]
    with pytest.raises(ConfigError, match=f"unknown setting {typo} in .*: did you mean {key}\\?"):
        load_config({typo: "1"}, models=MODELS)
    monkeypatch.setenv(f"MONOLOGUE_{typo.upper()}", "1")
    result = CliRunner().invoke(cli, ["config"])
    assert (result.exit_code, result.stderr) == (
        2,
        f"monologue config: unknown setting MONOLOGUE_{typo.upper()}: "
        f"did you mean MONOLOGUE_{key.upper()}?\n",
    )


@pytest.mark.parametrize("plugin", sorted(MODELS))
def test_a_bad_value_warns_in_a_session_and_errors_in_the_cli(
    plugin: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    model = MODELS[plugin]
    key, value = a_bad_value(model)
    field = field_of(model, key)
    default = model.model_fields[field].get_default(call_default_factory=True)
    with (
        caplog.at_level(logging.WARNING, "monologue.settings"),
        monologue.session("settings", narrator="none", record=False, **{key: value}) as session,
    ):
        assert getattr(session.config.settings(model), field) == default
    assert f"{key} = {value!r} (from session() arguments): " in caplog.text
    assert f"the session uses the default ({default!r})" in caplog.text

    monkeypatch.setenv(f"MONOLOGUE_{key.upper()}", str(value))
    result = CliRunner().invoke(cli, ["config"])
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        f"monologue config: {key} = '{value}' (from env MONOLOGUE_{key.upper()}): "
    )


@pytest.mark.parametrize("plugin", sorted(MODELS))
def test_a_session_override_reaches_the_plugin(plugin: str, tmp_path: Path) -> None:
    model = MODELS[plugin]
    for key in keys(model):
        field = field_of(model, key)
        default = model.model_fields[field].get_default(call_default_factory=True)
        value = another_value(model, field, tmp_path)
        with monologue.session("settings", narrator="none", record=False, **{key: value}) as s:
            got = getattr(s.config.settings(model), field)
        assert got != default, key
        assert s.config.source(key) == "session() arguments"
