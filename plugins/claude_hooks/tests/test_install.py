"""`monologue hook install / uninstall / status` on real settings files, through the CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import MONOLOGUE, HookWorld
from monologue_claude_hooks.install import HOOK_EVENTS, MARK

OTHER = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
    },
}


def cli(world: HookWorld, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MONOLOGUE, "hook", *args], env=world.env, capture_output=True, text=True, timeout=60
    )


def write_settings(project: Path, text: str) -> Path:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return path


def test_install_merges_keeps_the_rest_and_uninstall_restores_the_bytes(
    world: HookWorld, tmp_path: Path
) -> None:
    # Odd spacing and key order: a rewrite would not give these bytes back.
    original = json.dumps(OTHER, indent=4, sort_keys=True) + "\n\n"
    path = write_settings(tmp_path, original)
    done = cli(world, "install", "--project", str(tmp_path))
    assert done.returncode == 0, done.stderr
    settings = json.loads(path.read_text())
    assert settings["model"] == "opus" and settings["permissions"] == OTHER["permissions"]
    assert settings["hooks"]["PreToolUse"][0] == OTHER["hooks"]["PreToolUse"][0]
    assert settings["hooks"]["Stop"][0] == OTHER["hooks"]["Stop"][0]
    for event in HOOK_EVENTS:
        (mine,) = [g for g in settings["hooks"][event] if MARK in json.dumps(g)]
        (entry,) = mine["hooks"]
        assert entry["type"] == "command" and entry["async"] is True
        assert entry["command"].endswith("monologue_hook.py run")
        assert " -S -I " in entry["command"]
        assert ("matcher" in mine) == event.startswith(("PreToolUse", "PostToolUse"))
    backup = path.with_name("settings.json.monologue-backup")
    assert backup.read_text() == original

    first = path.read_bytes()
    again = cli(world, "install", "--project", str(tmp_path))
    assert again.returncode == 0 and "already installed" in again.stdout
    assert path.read_bytes() == first

    status = cli(world, "status", "--project", str(tmp_path))
    assert "PreToolUse" in status.stdout and "not running" in status.stdout

    gone = cli(world, "uninstall", "--project", str(tmp_path))
    assert gone.returncode == 0, gone.stderr
    assert path.read_text() == original
    assert not backup.exists()
    assert "none" in cli(world, "status", "--project", str(tmp_path)).stdout


def test_uninstall_keeps_what_changed_meanwhile(world: HookWorld, tmp_path: Path) -> None:
    path = write_settings(tmp_path, json.dumps(OTHER))
    cli(world, "install", "--project", str(tmp_path))
    settings = json.loads(path.read_text())
    settings["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": "new.sh"}]})
    path.write_text(json.dumps(settings))
    cli(world, "uninstall", "--project", str(tmp_path))
    after = json.loads(path.read_text())
    assert MARK not in path.read_text()
    assert after["hooks"]["Stop"][-1]["hooks"][0]["command"] == "new.sh"
    assert after["hooks"]["PreToolUse"] == OTHER["hooks"]["PreToolUse"]


def test_install_into_a_project_without_settings_and_back(world: HookWorld, tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    assert cli(world, "install", "--project", str(tmp_path), "--speak").returncode == 0
    commands = {
        g["hooks"][0]["command"]
        for groups in json.loads(path.read_text())["hooks"].values()
        for g in groups
    }
    assert len(commands) == 1 and commands.pop().endswith("run --speak")
    # Other flags replace the entries; there is still one a hook event.
    assert cli(world, "install", "--project", str(tmp_path), "--serve").returncode == 0
    hooks = json.loads(path.read_text())["hooks"]
    assert all(len(groups) == 1 for groups in hooks.values())
    assert all(g[0]["hooks"][0]["command"].endswith("run --serve") for g in hooks.values())
    assert cli(world, "uninstall", "--project", str(tmp_path)).returncode == 0
    assert not path.exists()


def test_a_settings_file_that_is_not_json_is_refused_in_one_line(
    world: HookWorld, tmp_path: Path
) -> None:
    path = write_settings(tmp_path, '{"hooks": {,}')
    done = cli(world, "install", "--project", str(tmp_path))
    assert done.returncode != 0
    (line,) = done.stderr.strip().splitlines()
    assert str(path) in line and "not JSON" in line
    assert path.read_text() == '{"hooks": {,}'
    assert not path.with_name("settings.json.monologue-backup").exists()


def test_user_settings_go_to_home(world: HookWorld, tmp_path: Path) -> None:
    home = tmp_path / "home"
    world.env["HOME"] = str(home)
    assert cli(world, "install", "--user").returncode == 0
    assert MARK in (home / ".claude" / "settings.json").read_text()
    both = cli(world, "install", "--user", "--project", str(tmp_path))
    assert both.returncode != 0 and "not both" in both.stderr
