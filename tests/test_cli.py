from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from monologue import __version__, hookimpl
from monologue.cli import cli

# pluggy too: the markers load it when a plugin needs them, and --help needs none.
HEAVY = ("pydantic", "jinja2", "rich", "anthropic", "httpx", "pluggy")


def test_version():
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"monologue, version {__version__}"


def imported_by(args: list[str], cache: Path) -> tuple[str, set[str]]:
    """What ``monologue ARGS`` prints, and the top-level modules it imported."""
    code = (
        "import sys\n"
        "from monologue.cli import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
        "print(sorted({m.split('.')[0] for m in sys.modules}))"
    )
    env = {**os.environ, "MONOLOGUE_CACHE_DIR": str(cache), "MONOLOGUE_NO_CONFIG_FILE": "1"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
    )
    assert result.returncode == 0, result.stderr
    *shown, modules = result.stdout.strip().splitlines()
    return "\n".join(shown), set(ast.literal_eval(modules))


@pytest.mark.parametrize("args", [["--help"], ["plugins"], ["plugins", "--json"]])
def test_help_and_plugins_import_no_plugin_and_no_heavy_dependency(args, tmp_path):
    first, _ = imported_by(args, tmp_path)  # builds the plugin index, importing plugins
    shown, modules = imported_by(args, tmp_path)
    assert shown == first
    assert not modules & set(HEAVY)
    assert not {m for m in modules if m.startswith("monologue_")}
    if args == ["--help"]:
        assert "Narrate what AI agents do" in shown
        for name in entry_points(group="monologue"):
            assert f"from {name.name}" not in shown  # listed by name, with their own help


def test_plugins_lists_registered_plugins(monologue_plugins):
    class Watcher:
        @hookimpl
        def on_event(self, event):
            pass

    monologue_plugins.register(Watcher(), "watcher")
    result = CliRunner().invoke(cli, ["plugins", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)  # one JSON document, like `llm plugins`
    assert rows == [
        {
            "name": "watcher",
            "distribution": None,
            "version": None,
            "hooks": ["on_event"],
            "status": "loaded",
            "error": None,
        }
    ]
    table = CliRunner().invoke(cli, ["plugins", "--hook", "narrate"])
    assert table.output.strip() == "no plugins implement narrate"
    unknown = CliRunner().invoke(cli, ["plugins", "--hook", "on_evnt"])
    assert unknown.exit_code == 2
    assert "no hook named 'on_evnt'" in unknown.output


def test_plugin_commands_are_added_and_a_failing_one_is_skipped(monologue_plugins, caplog):
    class Adds:
        @hookimpl
        def register_commands(self, cli):
            @cli.command("greet")
            def greet():
                click.echo("hi")

    class Fails:
        @hookimpl
        def register_commands(self, cli):
            raise RuntimeError("no commands for you")

    monologue_plugins.register(Adds(), "adds")
    monologue_plugins.register(Fails(), "fails")
    from monologue.cli import MonologueGroup

    fresh = MonologueGroup(name="monologue", commands=dict(cli.commands))
    result = CliRunner().invoke(fresh, ["greet"])
    assert result.exit_code == 0
    assert result.output.strip() == "hi"
    assert monologue_plugins.hooks.errors[("fails", "register_commands")] == 1


def test_config_shows_values_and_sources(monologue_plugins, monkeypatch):
    monkeypatch.setenv("MONOLOGUE_PRESET", "terse")
    result = CliRunner().invoke(cli, ["config", "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["preset"]["value"] == "terse"
    assert shown["preset"]["source"] == "env MONOLOGUE_PRESET"
    assert (shown["min_buffer_size"]["value"], shown["min_buffer_size"]["source"]) == (2, "default")


def test_config_reports_a_bad_core_value_in_one_line(monologue_plugins, monkeypatch):
    monkeypatch.setenv("MONOLOGUE_MIN_BUFFER_SIZE", "abc")
    result = CliRunner().invoke(cli, ["config"])
    assert result.exit_code == 2
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        "monologue config: min_buffer_size = 'abc' (from env MONOLOGUE_MIN_BUFFER_SIZE): "
    )
    assert "Traceback" not in result.output
