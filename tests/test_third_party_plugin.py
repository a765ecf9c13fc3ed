"""A real third-party plugin distribution, built and pip-installed into this environment.

Everything runs in subprocesses so that entry points are discovered the way a user's
``monologue`` process discovers them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_monologue import installed_plugins

GOOD = '''
import os
from monologue import hookimpl

@hookimpl
def on_event(session, event):
    with open(os.environ["THIRDPARTY_OUT"], "a") as out:
        out.write(f"{event.type} {session.agent}\\n")

@hookimpl
def register_commands(cli):
    import click

    @cli.command("hello")
    def hello():
        """Say hello from a third-party plugin."""
        click.echo("hello from thirdparty")
'''

BROKEN = """
raise ImportError("this plugin needs libfoo, which is missing")
"""

BAD_CLI = """
from monologue import hookimpl

@hookimpl
def register_commands(cli):
    raise RuntimeError("cannot add my command")
"""

DISTS = {
    "monologue-thirdparty": ("thirdparty", "monologue_thirdparty", GOOD),
    "monologue-brokenplugin": ("brokenplugin", "monologue_brokenplugin", BROKEN),
    "monologue-badcli": ("badcli", "monologue_badcli", BAD_CLI),
}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with installed_plugins(tmp_path_factory.mktemp("dists"), DISTS, version="1.2.3"):
        yield


def run(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("MONOLOGUE_")}
    base["MONOLOGUE_NO_CONFIG_FILE"] = "1"
    return subprocess.run(args, capture_output=True, text=True, env={**base, **env}, timeout=60)


def monologue(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "-m", "monologue", *args], **env)


def listed(result: subprocess.CompletedProcess[str]) -> dict[str, dict]:
    assert result.returncode == 0, result.stderr
    return {row["name"]: row for row in json.loads(result.stdout)}


@pytest.mark.usefixtures("installed")
def test_discovered_through_its_entry_point_and_its_hooks_are_called(tmp_path: Path):
    rows = listed(monologue("plugins", "--json"))
    assert rows["thirdparty"]["status"] == "loaded"
    assert rows["thirdparty"]["distribution"] == "monologue-thirdparty"
    assert rows["thirdparty"]["version"] == "1.2.3"
    assert rows["thirdparty"]["hooks"] == ["on_event", "register_commands"]

    out = tmp_path / "events.txt"
    script = (
        "from monologue import session\n"
        "with session('coder', narrator='none') as s:\n"
        "    s.tool_call('Read', {'path': 'README.md'})\n"
    )
    result = run([sys.executable, "-c", script], THIRDPARTY_OUT=str(out))
    assert result.returncode == 0, result.stderr
    assert out.read_text().splitlines() == ["tool_call coder", "completion coder"]


@pytest.mark.usefixtures("installed")
def test_allow_list_and_block_list():
    only = listed(monologue("plugins", "--json", MONOLOGUE_LOAD_PLUGINS="monologue-thirdparty"))
    assert set(only) == {"thirdparty"}
    by_entry_point_name = listed(monologue("plugins", "--json", MONOLOGUE_LOAD_PLUGINS="badcli"))
    assert set(by_entry_point_name) == {"badcli"}
    none = monologue("plugins", MONOLOGUE_LOAD_PLUGINS="")
    assert none.returncode == 0
    assert none.stdout.strip() == "no plugins are installed"
    blocked = listed(
        monologue(
            "plugins", "--json", MONOLOGUE_DISABLE_PLUGINS="monologue-thirdparty, brokenplugin"
        )
    )
    assert "thirdparty" not in blocked
    assert "brokenplugin" not in blocked
    assert "badcli" in blocked


@pytest.mark.usefixtures("installed")
def test_plugin_failing_at_import_is_reported_and_the_others_work():
    result = monologue("plugins", "--json")
    rows = listed(result)
    assert rows["brokenplugin"]["status"] == "failed"
    assert (
        rows["brokenplugin"]["error"] == "ImportError: this plugin needs libfoo, which is missing"
    )
    assert rows["thirdparty"]["status"] == "loaded"
    assert (
        "monologue plugin 'brokenplugin' (monologue-brokenplugin) failed to load" in result.stderr
    )

    table = monologue("plugins", "--hook", "register_commands")
    assert table.returncode == 0
    assert "thirdparty" in table.stdout
    assert "brokenplugin" not in table.stdout


@pytest.mark.usefixtures("installed")
def test_strict_mode_turns_a_failed_import_into_a_clear_error():
    result = monologue("plugins", MONOLOGUE_STRICT_PLUGINS="1")
    assert result.returncode != 0
    assert (
        "monologue plugin 'brokenplugin' (monologue-brokenplugin) failed to load" in result.stderr
    )
    assert "ImportError: this plugin needs libfoo, which is missing" in result.stderr
    assert "MONOLOGUE_STRICT_PLUGINS" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.usefixtures("installed")
def test_a_plugin_failing_to_add_commands_does_not_break_the_cli():
    help_text = monologue("--help")
    assert help_text.returncode == 0
    assert "hello" in help_text.stdout
    assert "plugin 'badcli' raised in register_commands" in help_text.stderr
    hello = monologue("hello")
    assert hello.returncode == 0
    assert hello.stdout.strip() == "hello from thirdparty"
