"""Every command's expected failure is one line on standard error, naming the input and what
is wrong: exit 2 for a usage error, 1 for a failure. Tracebacks only with ``-v``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from monologue import hookimpl
from monologue.cli import main


def monologue(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MONOLOGUE_")}
    return subprocess.run(
        [sys.executable, "-m", "monologue", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**clean, "MONOLOGUE_NO_CONFIG_FILE": "1", "MONOLOGUE_LOAD_PLUGINS": "", **env},
    )


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "sessions").mkdir()
    return tmp_path


def test_replay_of_a_missing_file(folder: Path) -> None:
    result = monologue("replay", str(folder / "nope.jsonl"))
    assert result.returncode == 1
    assert one_line(result) == f"monologue: {folder / 'nope.jsonl'}: no such file"


def test_replay_with_a_bad_option_value() -> None:
    result = monologue("replay", "--speed", "fast", "x.jsonl")
    assert result.returncode == 2
    line = one_line(result)
    assert line.startswith("monologue replay: Invalid value for '--speed': 'fast'")
    assert line.endswith("(see monologue replay --help)")


def test_watch_of_a_directory(folder: Path) -> None:
    result = monologue("watch", "--timeout", "1", str(folder))
    assert result.returncode == 1
    assert one_line(result) == f"monologue: {folder}: is a directory, not a session file"


def test_log_of_an_unknown_session(folder: Path) -> None:
    result = monologue("log", "NOSUCH", MONOLOGUE_RECORD_DIR=str(folder / "sessions"))
    assert result.returncode == 1
    assert one_line(result) == (
        f"monologue: no recorded session 'NOSUCH' in {folder / 'sessions'} "
        "(nor a file of that name)"
    )


def test_sessions_with_a_bad_setting(folder: Path) -> None:
    result = monologue("sessions", MONOLOGUE_MIN_BUFFER_SIZE="many")
    assert result.returncode == 2
    line = one_line(result)
    assert line.startswith("monologue sessions: min_buffer_size = 'many' (from env MONOLOGUE_")


def test_sessions_with_a_negative_count() -> None:
    result = monologue("sessions", "-n", "-3")
    assert result.returncode == 2
    assert one_line(result).startswith("monologue sessions: Invalid value for '-n' / '--count'")


def test_plugins_with_an_unknown_hook() -> None:
    result = monologue("plugins", "--hook", "on_evnt")
    assert result.returncode == 2
    assert one_line(result) == (
        "monologue plugins: Invalid value for --hook: no hook named 'on_evnt' "
        "(see monologue plugins --help)"
    )


def test_config_with_a_bad_value() -> None:
    result = monologue("config", MONOLOGUE_HISTORY_SIZE="-")
    assert result.returncode == 2
    assert one_line(result).startswith("monologue config: history_size = '-' (from env MONOLOGUE_")


def test_an_unknown_command() -> None:
    result = monologue("replya")
    assert result.returncode == 2
    assert one_line(result) == (
        "monologue: No such command 'replya'. Did you mean 'replay'? (see monologue --help)"
    )


class Crashes:
    @hookimpl
    def register_commands(self, cli: click.Group) -> None:
        @cli.command("crash")
        def crash() -> None:
            raise RuntimeError("a bug in a command")


def test_an_unexpected_error_is_one_line_and_its_traceback_needs_v(
    monologue_plugins, capsys: pytest.CaptureFixture[str]
) -> None:
    from monologue.cli import cli

    monologue_plugins.register(Crashes(), "crashes")
    cli._plugins_loaded = False  # type: ignore[attr-defined]  # ask this test's plugins
    try:
        with pytest.raises(SystemExit) as stopped:
            main(["crash"])
        assert stopped.value.code == 1
        assert capsys.readouterr().err.strip() == (
            "monologue: unexpected error: RuntimeError: a bug in a command "
            "(run with -v for the traceback)"
        )
        with pytest.raises(RuntimeError, match="a bug in a command"):
            main(["-v", "crash"])
    finally:
        cli.commands.pop("crash", None)
        cli._plugins_loaded = False  # type: ignore[attr-defined]


class Interrupted:
    @hookimpl
    def register_commands(self, cli: click.Group) -> None:
        @cli.command("wait")
        def wait() -> None:
            raise KeyboardInterrupt  # what a user's Ctrl-C does to a running command


def test_ctrl_c_exits_130_and_prints_nothing(
    monologue_plugins, capsys: pytest.CaptureFixture[str]
) -> None:
    from monologue.cli import cli

    monologue_plugins.register(Interrupted(), "interrupted")
    cli._plugins_loaded = False  # type: ignore[attr-defined]  # ask this test's plugins
    try:
        with pytest.raises(SystemExit) as stopped:
            main(["wait"])
        assert stopped.value.code == 130
        assert capsys.readouterr().err.strip() == ""  # not click's "Aborted!"
    finally:
        cli.commands.pop("wait", None)
        cli._plugins_loaded = False  # type: ignore[attr-defined]
