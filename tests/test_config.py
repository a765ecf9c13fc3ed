from __future__ import annotations

from pathlib import Path

import pytest

from monologue import ConfigError, MonologueConfig, load_config
from monologue.settings import cli_overrides


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in [n for n in __import__("os").environ if n.startswith("MONOLOGUE_")]:
        monkeypatch.delenv(name)
    nested = tmp_path / "src" / "pkg"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)
    return tmp_path


def test_defaults_are_the_documented_ones():
    config = MonologueConfig()
    assert (config.min_buffer_size, config.max_buffer_size, config.history_size) == (2, 10, 5)
    assert (config.narrator, config.model, config.preset) == ("auto", "haiku", "default")


def test_precedence_file_env_cli_arguments(project: Path, monkeypatch: pytest.MonkeyPatch):
    (project / "pyproject.toml").write_text(
        "[tool.monologue]\nmin_buffer_size = 3\nmax-buffer-size = 12\npreset = 'terse'\n"
        "history_size = 7\ngate = 'strict'\n"
    )
    assert load_config().min_buffer_size == 3  # found walking up from src/pkg
    monkeypatch.setenv("MONOLOGUE_MIN_BUFFER_SIZE", "4")
    monkeypatch.setenv("MONOLOGUE_PRESET", "verbose")
    with cli_overrides({"preset": "default", "narrator": None}):
        config = load_config({"history_size": 1})
    assert config.min_buffer_size == 4  # env beats file
    assert config.max_buffer_size == 12  # file, dashed key normalised
    assert config.preset == "default"  # CLI beats env
    assert config.history_size == 1  # arguments beat everything
    assert config.option("gate") == "strict"  # plugin settings are kept as extras
    assert config.option("missing", "fallback") == "fallback"


def test_monologue_toml_is_used_and_nearest_wins(project: Path):
    (project / "pyproject.toml").write_text("[tool.monologue]\nhistory_size = 9\n")
    (project / "src" / "monologue.toml").write_text("history_size = 2\n")
    assert load_config().history_size == 2


def test_no_config_file_switch(project: Path, monkeypatch: pytest.MonkeyPatch):
    (project / "monologue.toml").write_text("history_size = 2\n")
    monkeypatch.setenv("MONOLOGUE_NO_CONFIG_FILE", "1")
    assert load_config().history_size == 5


def test_bad_env_value_names_field_and_source(project: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MONOLOGUE_MIN_BUFFER_SIZE", "lots")
    with pytest.raises(ConfigError) as info:
        load_config()
    message = str(info.value)
    assert "min_buffer_size = 'lots'" in message
    assert "from environment" in message


def test_bad_file_value_names_the_file(project: Path):
    (project / "pyproject.toml").write_text("[tool.monologue]\npreset = 'loud'\n")
    with pytest.raises(
        ConfigError, match=r"preset = 'loud' \(from .*pyproject.toml \[tool.monologue\]\)"
    ):
        load_config()


def test_inconsistent_sizes_name_both_sources(project: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MONOLOGUE_MIN_BUFFER_SIZE", "8")
    with pytest.raises(ConfigError) as info:
        load_config({"max_buffer_size": 4})
    message = str(info.value)
    assert "min_buffer_size (8) must not exceed max_buffer_size (4)" in message
    assert "min_buffer_size from environment" in message
    assert "max_buffer_size from session() arguments" in message


def test_invalid_toml_is_reported_with_its_path(project: Path):
    (project / "monologue.toml").write_text("history_size = = 2\n")
    with pytest.raises(ConfigError, match=r"monologue\.toml: not valid TOML"):
        load_config()


def test_plugin_loading_variables_are_not_settings(project: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MONOLOGUE_STRICT_PLUGINS", "1")
    monkeypatch.setenv("MONOLOGUE_DATA_DIR", str(project / "data"))
    config = load_config()
    assert config.option("strict_plugins") is None
    assert config.resolved_data_dir() == project / "data"
    assert config.resolved_record_dir() == project / "data" / "sessions"
