"""Which narrator a session uses, and failing at start (not at the first event)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from pytest_monologue import PluginSandbox
from pytest_monologue.anthropic import LoopbackAPI

from monologue import hookimpl
from monologue.errors import ConfigError, NarratorUnavailable


class OfflineNarrator:
    """Stands in for the template plugin, which this plugin does not depend on."""

    @hookimpl
    def narrator_priority(self) -> int:
        return 0  # as the template plugin declares: below anthropic's

    @hookimpl
    def narrate(self) -> str:
        return "offline"


@pytest.fixture
def both(monologue_plugins: PluginSandbox) -> PluginSandbox:
    monologue_plugins.load("anthropic")
    monologue_plugins.register(OfflineNarrator(), "template")
    return monologue_plugins


def test_auto_uses_anthropic_when_the_key_is_set(
    both: PluginSandbox, loopback_api: LoopbackAPI
) -> None:
    with both.session("coder", narrator="auto") as session:
        assert session.narrator == "anthropic"


def test_auto_falls_back_to_the_template_narrator_without_a_key(both: PluginSandbox) -> None:
    with both.session("coder", narrator="auto") as session:
        assert session.narrator == "template"


@pytest.mark.parametrize("key", [None, "", "   "])
def test_explicit_anthropic_without_a_key_fails_at_start(
    both: PluginSandbox, monkeypatch: pytest.MonkeyPatch, key: str | None, loopback_api: LoopbackAPI
) -> None:
    if key is None:
        monkeypatch.delenv("ANTHROPIC_API_KEY")
    else:
        monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    session = both.session("coder", narrator="anthropic")

    with pytest.raises(NarratorUnavailable, match="ANTHROPIC_API_KEY is not set") as caught:
        session.__enter__()
    assert not session.active
    assert "narrator 'anthropic' cannot be used" in str(caught.value)
    assert 'narrator="template"' in str(caught.value)
    assert loopback_api.requests == []


def test_a_bad_setting_is_warned_about_naming_the_key_and_runs_on_the_default(
    both: PluginSandbox, loopback_api: LoopbackAPI, caplog: pytest.LogCaptureFixture
) -> None:
    from monologue_anthropic.settings import AnthropicSettings

    with both.session("coder", narrator="anthropic", anthropic_max_tokens="lots") as session:
        assert session.config.settings(AnthropicSettings).max_tokens == 150

    assert "anthropic_max_tokens = 'lots' (from session() arguments)" in caplog.text


def test_a_bad_setting_from_the_environment_names_the_variable(
    both: PluginSandbox, loopback_api: LoopbackAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONOLOGUE_ANTHROPIC_MAX_RETRIES", "-1")
    monkeypatch.setenv("MONOLOGUE_STRICT_CONFIG", "1")

    with pytest.raises(
        ConfigError,
        match=r"anthropic_max_retries = '-1' \(from env MONOLOGUE_ANTHROPIC_MAX_RETRIES\): "
        ".*greater than or equal to 0",
    ):
        both.session("coder").start()


def test_a_misspelt_setting_is_named_with_a_suggestion(
    both: PluginSandbox, loopback_api: LoopbackAPI, caplog: pytest.LogCaptureFixture
) -> None:
    with both.session("coder", narrator="anthropic", anthropic_max_token=50):
        pass

    assert (
        "unknown setting anthropic_max_token in session() arguments: "
        "did you mean anthropic_max_tokens?" in caplog.text
    )


def test_plugin_import_stays_light() -> None:
    """``monologue --help`` imports this plugin: it must not pull the SDK or pydantic."""
    code = (
        "import sys, monologue_anthropic; "
        "print(sorted(m for m in ('anthropic', 'pydantic', 'httpx', 'httpx2', 'jinja2') "
        "if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


def test_the_sdk_is_imported_in_the_background_at_session_start(
    monologue_plugins: PluginSandbox,
    anthropic_narrator: LoopbackAPI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Importing the SDK takes seconds: it starts on a daemon thread when the session starts
    with this narrator, not at the first narration."""
    import threading

    from monologue_anthropic import transport

    imported_on: list[str] = []
    monkeypatch.setattr(
        transport, "_import_sdk", lambda: imported_on.append(threading.current_thread().name)
    )
    with monologue_plugins.session("coder"):
        deadline = time.monotonic() + 10
        while not imported_on and time.monotonic() < deadline:
            time.sleep(0.01)
        assert imported_on == ["monologue-anthropic-warm-up"]
    assert anthropic_narrator.requests == []  # warming up sends nothing
