"""``monologue --help`` and ``monologue plugins`` print what they printed last time
(cli/_replies.py), without importing click, exactly as click prints it, and only while
nothing it was made from changed: the plugin index, monologue's modules, the plugin
environment variables and the terminal's width."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from monologue.cli._replies import cached_reply, remember_reply
from monologue.plugins._index import cache_file, plugin_index


def run_help(cache: Path, *args: str, **env: str) -> tuple[str, str, set[str]]:
    """``monologue ARGS`` (``--help`` by default): its output, its standard error and the
    top-level modules it imported."""
    shown, errors, modules = run_main(cache, *(args or ["--help"]), **env)
    return shown, errors, {name.split(".")[0] for name in modules}


def run_main(cache: Path, *args: str, **env: str) -> tuple[str, str, set[str]]:
    """``monologue ARGS``: its output, its standard error and the modules it imported."""
    code = (
        "import sys\n"
        "from monologue.cli import main\n"
        f"try:\n    main({list(args)!r})\nexcept SystemExit:\n    pass\n"
        "print(sorted(sys.modules))"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MONOLOGUE_")}
    clean.pop("COLUMNS", None)
    environ = {**clean, "MONOLOGUE_CACHE_DIR": str(cache), "MONOLOGUE_NO_CONFIG_FILE": "1"}
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**environ, **env},
    )
    assert result.returncode == 0, result.stderr
    shown, _, modules = result.stdout.rstrip("\n").rpartition("\n")
    return shown, result.stderr, set(ast.literal_eval(modules))


def test_help_is_printed_from_the_cache_as_click_rendered_it(tmp_path: Path) -> None:
    rendered, _, first = run_help(tmp_path)
    assert "click" in first  # the first run renders it through click
    cached, errors, modules = run_help(tmp_path)
    assert cached == rendered
    assert errors == ""
    assert "click" not in modules
    assert "Narrate what AI agents do" in cached and "Commands:" in cached
    short, _, modules = run_help(tmp_path, "-h")
    assert short == rendered
    assert "click" not in modules
    # An ASCII stream gets what click prints there (it writes UTF-8 to a misconfigured one).
    ascii_only, _, _ = run_help(tmp_path, PYTHONIOENCODING="ascii")
    assert ascii_only == rendered


def test_each_terminal_width_has_its_own_rendering(tmp_path: Path) -> None:
    wide, _, _ = run_help(tmp_path, COLUMNS="120")
    narrow, _, modules = run_help(tmp_path, COLUMNS="60")
    assert "click" in modules  # not the wide one
    assert len(narrow.splitlines()) > len(wide.splitlines())  # click wrapped it narrower
    for columns, expected in (("120", wide), ("60", narrow)):
        shown, _, modules = run_help(tmp_path, COLUMNS=columns)
        assert shown == expected
        assert "click" not in modules


def test_plugins_is_printed_from_the_cache_as_click_printed_it(tmp_path: Path) -> None:
    printed, _, first = run_help(tmp_path, "plugins")
    assert "click" in first
    cached, errors, modules = run_help(tmp_path, "plugins")
    assert (cached, errors) == (printed, "")
    assert "click" not in modules
    assert printed


def test_other_commands_and_options_go_through_click(tmp_path: Path) -> None:
    run_help(tmp_path)
    run_help(tmp_path, "plugins")
    for args in (["-v", "--help"], ["plugins", "--help"], ["--version"], ["plugins", "--json"]):
        shown, _, modules = run_help(tmp_path, *args)
        assert "click" in modules, args
        assert shown
    shown, _, _ = run_help(tmp_path, "plugins", "--help")
    assert shown.startswith("Usage: monologue plugins [OPTIONS]")


@pytest.mark.parametrize("args", [["--help"], ["plugins"]])
def test_through_click_they_still_import_no_plugin(tmp_path: Path, args: list[str]) -> None:
    cached, _, _ = run_help(tmp_path, *args)  # builds the index and remembers the text
    for replies in tmp_path.glob("replies-*.json"):
        replies.unlink()
    shown, _, modules = run_help(tmp_path, *args)
    assert shown == cached
    assert "click" in modules
    assert not modules & {"pluggy", "pydantic"}
    assert not {name for name in modules if name.startswith("monologue_")}


def test_the_viewing_commands_are_imported_when_needed(tmp_path: Path) -> None:
    viewing = "monologue.replay._viewing"
    _, _, modules = run_main(tmp_path, "plugins")
    assert viewing not in modules
    shown, _, modules = run_main(tmp_path, "replay", "--help")
    assert shown.startswith("Usage: monologue replay [OPTIONS]")
    assert viewing in modules
    # `monologue` alone shows its help where click does: on standard error, exit 2.
    code = "from monologue.cli import main\nmain([])"
    env = {**os.environ, "MONOLOGUE_CACHE_DIR": str(tmp_path)}
    alone = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert alone.returncode == 2
    assert alone.stderr.startswith("Usage: monologue [OPTIONS] COMMAND [ARGS]...")
    for command in ("replay", "watch", "log", "plugins"):
        assert f"\n  {command} " in alone.stderr


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MONOLOGUE_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("MONOLOGUE_LOAD_PLUGINS", "MONOLOGUE_DISABLE_PLUGINS", "COLUMNS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MONOLOGUE_STRICT_PLUGINS", "0")
    return tmp_path


def loaded_module(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """A monologue module, as loaded from ``path``."""
    module = types.ModuleType("monologue._edited")
    module.__file__ = str(path)
    monkeypatch.setitem(sys.modules, module.__name__, module)


def test_a_changed_module_environment_or_index_drops_the_cached_text(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = cache / "commands.py"
    source.write_text("")
    loaded_module(monkeypatch, source)
    index = plugin_index()
    remember_reply("help", "HELP", index)
    remember_reply("plugins", "PLUGINS", index)
    assert (cached_reply("help"), cached_reply("plugins")) == ("HELP", "PLUGINS")

    os.utime(source, ns=(1, 1))  # a module they were made with was edited
    assert cached_reply("help") is None
    remember_reply("help", "HELP", index)
    assert (cached_reply("help"), cached_reply("plugins")) == ("HELP", None)

    monkeypatch.setenv("MONOLOGUE_DISABLE_PLUGINS", "template")
    assert cached_reply("help") is None
    monkeypatch.delenv("MONOLOGUE_DISABLE_PLUGINS")
    monkeypatch.setenv("MONOLOGUE_STRICT_PLUGINS", "1")
    assert cached_reply("help") is None
    monkeypatch.setenv("MONOLOGUE_STRICT_PLUGINS", "0")
    monkeypatch.setenv("COLUMNS", "61")
    assert cached_reply("help") is None
    monkeypatch.delenv("COLUMNS")
    assert cached_reply("help") == "HELP"

    # The index itself is rebuilt (here: one of its plugin files changed).
    stored = json.loads(Path(cache_file("plugins")).read_text())
    stored["files"][str(source)] = 1
    Path(cache_file("plugins")).write_text(json.dumps(stored))
    assert cached_reply("help") is None


def test_a_module_that_cannot_be_checked_means_nothing_is_remembered(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded_module(monkeypatch, cache / "gone.py")
    remember_reply("help", "HELP", plugin_index())
    assert cached_reply("help") is None
    assert not Path(cache_file("replies")).exists()


def test_with_a_failing_plugin_both_go_through_click_and_warn_every_time(tmp_path: Path) -> None:
    run_help(tmp_path)  # builds the index and caches the help
    [index_file] = tmp_path.glob("plugins-*.json")
    index = json.loads(index_file.read_text())
    broken = {"name": "broken", "distribution": "monologue-broken", "version": "1.0"}
    index["rows"].append({**broken, "hooks": [], "status": "failed", "error": "ImportError: x"})
    index_file.write_text(json.dumps(index))
    for args in (["--help"], ["--help"], ["plugins"], ["plugins"]):
        shown, errors, modules = run_help(tmp_path, *args)
        assert "monologue plugin 'broken' (monologue-broken) failed to load" in errors
        assert "click" in modules
        assert "Commands:" in shown if args == ["--help"] else "FAILED   ImportError" in shown
