"""The settings registry: sources layered in one place, unknown keys refused with a
suggestion, a bad value handled one way (a session warns and runs on the default, the CLI
errors), per-session overrides reaching a plugin's model."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import Field
from pytest_monologue import PluginSandbox

from monologue import ConfigError, MonologueConfig, emit, hookimpl, load_config, monologue
from monologue.cli import cli
from monologue.settings import PluginSettings, cli_overrides

DEFAULTS = MonologueConfig()


class KnobSettings(PluginSettings):
    """A plugin's settings, as a plugin declares them."""

    knob: int = Field(3, ge=1, description="How far to turn it.")
    knob_label: str = Field("dial", description="What it is called.")


class KnobPlugin:
    @hookimpl
    def register_settings(self) -> type[KnobSettings]:
        return KnobSettings


MODELS = {"knobs": KnobSettings}


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "monologue.settings" and r.levelno == logging.WARNING
    ]


@pytest.fixture
def knobs(monologue_plugins: PluginSandbox) -> PluginSandbox:
    monologue_plugins.register(KnobPlugin(), "knobs")
    return monologue_plugins


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose config file is read, from a folder below it."""
    for name in [n for n in __import__("os").environ if n.startswith("MONOLOGUE_")]:
        monkeypatch.delenv(name)
    nested = tmp_path / "src" / "pkg"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)
    return tmp_path


@pytest.fixture
def config_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[[str], Path]:  # for sessions inside the plugin sandbox
    monkeypatch.delenv("MONOLOGUE_NO_CONFIG_FILE", raising=False)
    monkeypatch.chdir(tmp_path)

    def write(text: str) -> Path:
        path = tmp_path / "monologue.toml"
        path.write_text(text)
        return path

    return write


# -- layering ---------------------------------------------------------------------------


def test_defaults_are_the_documented_ones() -> None:
    assert (DEFAULTS.min_buffer_size, DEFAULTS.max_buffer_size, DEFAULTS.history_size) == (2, 10, 5)
    assert (DEFAULTS.narrator, DEFAULTS.model, DEFAULTS.preset) == ("auto", "haiku", "default")
    assert KnobSettings().knob == 3  # a model alone is its defaults: it reads no source


def test_sources_layer_defaults_file_env_flags_session(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = project / "pyproject.toml"
    path.write_text(
        "[tool.monologue]\nmin_buffer_size = 3\nmax-buffer-size = 12\npreset = 'terse'\n"
        "history_size = 7\nknob = 4\nknob_label = 'file'\n"
    )
    assert load_config(models=MODELS).min_buffer_size == 3  # found walking up from src/pkg
    monkeypatch.setenv("MONOLOGUE_MIN_BUFFER_SIZE", "4")
    monkeypatch.setenv("MONOLOGUE_PRESET", "verbose")
    monkeypatch.setenv("MONOLOGUE_KNOB", "5")
    with cli_overrides({"preset": "default", "narrator": None, "knob": "6"}):
        config = load_config({"history_size": 1}, models=MODELS)
    assert config.min_buffer_size == 4  # env beats file
    assert config.max_buffer_size == 12  # file, dashed key normalised
    assert config.preset == "default"  # flags beat env
    assert config.history_size == 1  # session arguments beat everything
    knob = config.settings(KnobSettings)
    assert (knob.knob, knob.knob_label) == (6, "file")  # a plugin's model: the same layers
    file = f"{path} [tool.monologue]"
    assert [config.source(k) for k in ("max_buffer_size", "min_buffer_size", "preset")] == [
        file,
        "env MONOLOGUE_MIN_BUFFER_SIZE",
        "command-line flags",
    ]
    assert [config.source(k) for k in ("history_size", "knob_label", "throttle_ms")] == [
        "session() arguments",
        file,
        "default",
    ]


def test_monologue_toml_is_used_and_nearest_wins(project: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.monologue]\nhistory_size = 9\n")
    (project / "src" / "monologue.toml").write_text("history_size = 2\n")
    assert load_config().history_size == 2


def test_no_config_file_switch(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "monologue.toml").write_text("history_size = 2\n")
    monkeypatch.setenv("MONOLOGUE_NO_CONFIG_FILE", "1")
    assert load_config().history_size == 5


def test_invalid_toml_is_reported_with_its_path(project: Path) -> None:
    (project / "monologue.toml").write_text("history_size = = 2\n")
    with pytest.raises(ConfigError, match=r"monologue\.toml: not valid TOML"):
        load_config()


def test_loading_variables_are_not_settings(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("STRICT_PLUGINS", "LOAD_PLUGINS", "DISABLE_PLUGINS", "STRICT_CONFIG"):
        monkeypatch.setenv(f"MONOLOGUE_{name}", "0")
    monkeypatch.setenv("MONOLOGUE_DATA_DIR", str(project / "data"))
    config = load_config(models=MODELS)  # no "unknown setting" for any of them
    assert config.given() == {"data_dir": str(project / "data")}
    assert config.resolved_record_dir() == project / "data" / "sessions"


# -- unknown keys -------------------------------------------------------------------------


def test_an_unknown_file_key_names_the_file_and_suggests(project: Path) -> None:
    path = project / "pyproject.toml"
    path.write_text('[tool.monologue]\nnarator = "template"\n')
    with pytest.raises(ConfigError) as info:
        load_config(models=MODELS)
    assert str(info.value) == (
        f"unknown setting narator in {path} [tool.monologue]: did you mean narrator?"
    )
    path.write_text("[tool.monologue]\nknobb = 2\nzzz = 1\n")
    with pytest.raises(ConfigError, match=r"unknown setting knobb in .*: did you mean knob\?"):
        load_config(models=MODELS)  # a plugin's key is suggested too


def test_an_unknown_key_without_a_near_one_says_no_plugin_declares_it(project: Path) -> None:
    (project / "monologue.toml").write_text("zzz = 1\n")
    with pytest.raises(ConfigError, match=r"unknown setting zzz in .*monologue\.toml \(no install"):
        load_config(models=MODELS)


def test_a_misspelt_variable_is_refused_and_a_foreign_one_passed_over(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another tool's, or an uninstalled plugin's, variable: nothing like a known key.
    monkeypatch.setenv("MONOLOGUE_SLACK_CHANNEL", "#agents")
    assert load_config(models=MODELS).given() == {}
    monkeypatch.setenv("MONOLOGUE_NARATOR", "template")
    with pytest.raises(ConfigError) as info:
        load_config(models=MODELS)
    assert str(info.value) == (
        "unknown setting MONOLOGUE_NARATOR: did you mean MONOLOGUE_NARRATOR?"
    )


def test_a_session_warns_about_an_unknown_key_and_runs(
    knobs: PluginSandbox, caplog: pytest.LogCaptureFixture
) -> None:
    with knobs.session("coder", narrator="none", knobz=9) as session:
        assert session.config.settings(KnobSettings).knob == 3
    (warning,) = warnings(caplog)
    assert warning.startswith(
        "unknown setting knobz in session() arguments: did you mean knob?; the session ignores it"
    )


# -- bad values: one way --------------------------------------------------------------


def test_a_bad_value_in_a_session_warns_once_and_runs_on_the_default(
    knobs: PluginSandbox,
    mock_narrator: object,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("MONOLOGUE_MAX_BUFFER_SIZE", "abc")
    monkeypatch.setenv("MONOLOGUE_KNOB", "0")
    monkeypatch.setenv("MONOLOGUE_HISTORY_SIZE", "3")
    seen: list[object] = []

    @monologue("coder")
    def agent() -> str:
        from monologue import current

        session = current()
        assert session is not None
        config = session.config
        seen.extend(
            [config.max_buffer_size, config.history_size, config.settings(KnobSettings).knob]
        )
        emit.text("hello")
        return "done"

    assert agent() == "done"
    assert agent() == "done"
    assert seen == [DEFAULTS.max_buffer_size, 3, 3] * 2  # only the bad settings are defaulted
    core, plugin = warnings(caplog)  # once each, not per session
    assert core.startswith(
        "max_buffer_size = 'abc' (from env MONOLOGUE_MAX_BUFFER_SIZE): Input should be a valid "
        "integer"
    )
    assert f"the session uses the default ({DEFAULTS.max_buffer_size})" in core
    assert "MONOLOGUE_STRICT_CONFIG=1" in core
    assert plugin.startswith("knob = '0' (from env MONOLOGUE_KNOB): Input should be greater")


def test_a_bad_file_value_names_the_file(
    knobs: PluginSandbox, config_file: Callable[[str], Path], caplog: pytest.LogCaptureFixture
) -> None:
    path = config_file("narrate_timeout_s = -1\n")
    with knobs.session("coder", narrator="none") as session:
        assert session.config.narrate_timeout_s == DEFAULTS.narrate_timeout_s
    (warning,) = warnings(caplog)
    assert warning.startswith(f"narrate_timeout_s = -1 (from {path}): Input should be greater")


def test_settings_out_of_order_fall_back_together(
    monologue_plugins: PluginSandbox, caplog: pytest.LogCaptureFixture
) -> None:
    with monologue_plugins.session("coder", narrator="none", min_buffer_size=50) as session:
        assert session.config.min_buffer_size == DEFAULTS.min_buffer_size
    (warning,) = warnings(caplog)
    assert "min_buffer_size (50) must not exceed max_buffer_size (10)" in warning


def test_strict_config_makes_a_bad_value_fatal_in_a_session(
    knobs: PluginSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONOLOGUE_KNOB", "lots")
    monkeypatch.setenv("MONOLOGUE_STRICT_CONFIG", "1")

    @monologue("coder", narrator="none")
    def agent() -> str:
        return "never"

    with pytest.raises(ConfigError, match=r"knob = 'lots' \(from env MONOLOGUE_KNOB\)"):
        agent()


def test_an_unreadable_config_file_is_left_out_of_a_session_with_a_warning(
    monologue_plugins: PluginSandbox,
    config_file: Callable[[str], Path],
    caplog: pytest.LogCaptureFixture,
) -> None:
    path = config_file("history_size = = 2\n")
    with monologue_plugins.session("coder", narrator="none") as session:
        assert session.config.history_size == DEFAULTS.history_size
    (warning,) = warnings(caplog)
    assert warning.startswith(f"{path}: not valid TOML")


def test_the_cli_refuses_a_bad_value_in_one_line_exit_2(
    knobs: PluginSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONOLOGUE_KNOB", "many")
    bad = CliRunner().invoke(cli, ["config"])
    assert bad.exit_code == 2
    assert bad.stderr == (
        "monologue config: knob = 'many' (from env MONOLOGUE_KNOB): Input should be a valid "
        "integer, unable to parse string as an integer\n"
    )
    monkeypatch.delenv("MONOLOGUE_KNOB")
    monkeypatch.setenv("MONOLOGUE_KNOBB", "1")
    typo = CliRunner().invoke(cli, ["sessions"])
    assert typo.exit_code == 0  # `sessions` reads only the core's folders
    typo = CliRunner().invoke(cli, ["config"])
    assert (typo.exit_code, typo.stderr) == (
        2,
        "monologue config: unknown setting MONOLOGUE_KNOBB: did you mean MONOLOGUE_KNOB?\n",
    )


# -- monologue config ------------------------------------------------------------------


def test_config_lists_every_setting_with_value_source_and_plugin(
    knobs: PluginSandbox, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MONOLOGUE_KNOB", "7")
    monkeypatch.setenv("MONOLOGUE_DATA_DIR", str(tmp_path))
    shown = json.loads(CliRunner().invoke(cli, ["config", "--json", "-c", "narrator=none"]).output)
    assert set(MonologueConfig.model_fields) | {"knob", "knob_label"} <= set(shown)
    assert shown["knob"] == {
        "value": 7,
        "source": "env MONOLOGUE_KNOB",
        "plugin": "knobs",
        "description": "How far to turn it.",
    }
    assert shown["knob_label"]["source"] == "default"
    assert shown["narrator"]["source"] == "command-line flags"
    assert shown["min_buffer_size"] | {"description": ""} == {
        "value": 2,
        "source": "default",
        "plugin": "core",
        "description": "",
    }
    # A computed default is shown as what a session would use.
    assert shown["record_dir"]["value"] == str(tmp_path / "sessions")
    table = CliRunner().invoke(cli, ["config"]).output.splitlines()
    assert [line.split() for line in table if line.startswith("knob ")] == [
        ["knob", "7", "knobs", "env", "MONOLOGUE_KNOB"]
    ]


# -- per-session overrides ------------------------------------------------------------


def test_session_arguments_reach_a_plugins_model(knobs: PluginSandbox) -> None:
    with (
        knobs.session("coder", narrator="none", knob=8) as first,
        knobs.session("other", narrator="none") as second,
    ):
        assert first.config.settings(KnobSettings).knob == 8
        assert second.config.settings(KnobSettings).knob == 3
    assert first.config.source("knob") == "session() arguments"
    # Resolved once per session: the same object every time it is read.
    assert first.config.settings(KnobSettings) is first.config.settings(KnobSettings)
