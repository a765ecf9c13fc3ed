"""A bad core setting never stops the agent: a warning naming the setting and its source,
and the session runs with that setting at its default. ``MONOLOGUE_STRICT_CONFIG=1`` makes
it fatal. ``monologue config`` still reports it as an error (see test_cli)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from monologue import ConfigError, MonologueConfig, emit, monologue
from monologue.settings import load_config
from monologue.testing import MockNarrator, PluginSandbox

DEFAULTS = MonologueConfig()


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "monologue.settings" and r.levelno == logging.WARNING
    ]


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], Path]:
    """Writes ``monologue.toml`` in a fresh working folder and lets sessions read it."""
    monkeypatch.delenv("MONOLOGUE_NO_CONFIG_FILE")
    monkeypatch.chdir(tmp_path)

    def write(text: str) -> Path:
        path = tmp_path / "monologue.toml"
        path.write_text(text)
        return path

    return write


def test_a_bad_environment_value_warns_and_the_decorated_agent_runs(
    monologue_plugins: PluginSandbox,
    mock_narrator: MockNarrator,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("MONOLOGUE_MAX_BUFFER_SIZE", "abc")
    monkeypatch.setenv("MONOLOGUE_HISTORY_SIZE", "3")
    seen: list[int] = []

    @monologue("coder")
    def agent() -> str:
        from monologue import current

        session = current()
        assert session is not None
        seen.extend([session.config.max_buffer_size, session.config.history_size])
        emit.text("hello")
        return "done"

    assert agent() == "done"
    assert agent() == "done"
    assert seen == [DEFAULTS.max_buffer_size, 3] * 2  # only the bad setting is defaulted
    (warning,) = warnings(caplog)  # once, not per session
    assert "max_buffer_size = 'abc' (from environment)" in warning
    assert f"uses the default for max_buffer_size ({DEFAULTS.max_buffer_size})" in warning
    assert "MONOLOGUE_STRICT_CONFIG=1" in warning


def test_a_bad_file_value_names_the_file(
    monologue_plugins: PluginSandbox,
    config_file: Callable[[str], Path],
    caplog: pytest.LogCaptureFixture,
) -> None:
    path = config_file("narrate_timeout_s = -1\n")
    with monologue_plugins.session("coder", narrator="none") as session:
        assert session.config.narrate_timeout_s == DEFAULTS.narrate_timeout_s
    (warning,) = warnings(caplog)
    assert f"narrate_timeout_s = -1 (from {path})" in warning


def test_settings_out_of_order_fall_back_together(
    monologue_plugins: PluginSandbox, caplog: pytest.LogCaptureFixture
) -> None:
    with monologue_plugins.session("coder", narrator="none", min_buffer_size=50) as session:
        assert session.config.min_buffer_size == DEFAULTS.min_buffer_size
    (warning,) = warnings(caplog)
    assert "min_buffer_size (50) must not exceed max_buffer_size (10)" in warning


def test_strict_config_makes_a_bad_value_fatal(
    monologue_plugins: PluginSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONOLOGUE_MAX_BUFFER_SIZE", "abc")
    monkeypatch.setenv("MONOLOGUE_STRICT_CONFIG", "1")

    @monologue("coder", narrator="none")
    def agent() -> str:
        return "never"

    with pytest.raises(ConfigError, match=r"max_buffer_size = 'abc' \(from environment\)"):
        agent()


def test_strict_config_is_not_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MONOLOGUE_STRICT_CONFIG", "0")
    assert load_config().option("strict_config") is None


def test_an_unreadable_config_file_is_left_out_with_a_warning(
    monologue_plugins: PluginSandbox,
    config_file: Callable[[str], Path],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    path = config_file("history_size = [unclosed\n")
    with monologue_plugins.session("coder", narrator="none") as session:
        assert session.config.history_size == DEFAULTS.history_size
    (warning,) = warnings(caplog)
    assert f"{path}: not valid TOML" in warning
    assert "the session ignores that file" in warning
    monkeypatch.setenv("MONOLOGUE_STRICT_CONFIG", "1")
    with pytest.raises(ConfigError, match="not valid TOML"):
        monologue_plugins.session("coder", narrator="none")
