"""Fixtures (loaded with `-p skills_fixtures`) and helpers of the skills plugin's tests.

Not a conftest.py: one module name per plugin keeps `mypy plugins` free of duplicates.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import monologue_skills
import pytest
from pytest_monologue import PluginSandbox

PYTHON = sys.executable
FIRST_PARTY = ("speak", "notify", "status", "webhook")
"""The first-party skill distributions (test-only dependencies of this plugin's tests)."""


@pytest.fixture
def tools_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "tools"
    folder.mkdir()
    return folder


@pytest.fixture
def skills_pm(
    monologue_plugins: PluginSandbox, tools_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> PluginSandbox:
    """A sandbox with this plugin registered as ``skills``, the first-party skill
    distributions loaded through their entry points, and tools_dir set to a tmp folder."""
    monkeypatch.setenv("MONOLOGUE_TOOLS_DIR", str(tools_dir))
    monkeypatch.setenv("MONOLOGUE_TOOL_GRACE", "0.5")
    monologue_plugins.register(monologue_skills, "skills")
    monologue_plugins.load(*FIRST_PARTY)
    return monologue_plugins


def python_tool(
    folder: Path, name: str, body: str, *, describe: dict[str, Any] | None = None
) -> Path:
    """An executable Python tool: ``body`` runs with ``request`` (the stdin JSON) and
    ``reply(success, output, stateChanges, errors, code)`` in scope."""
    description = describe or {"name": name, "description": f"test tool {name}"}
    source = f"""#!{PYTHON}
import json, os, sys, time
if sys.argv[1:] == ["--describe"]:
    print(json.dumps({description!r}))
    sys.exit(0)
request = json.loads(sys.stdin.read() or "{{}}")
def reply(success=True, output=None, stateChanges=(), errors=(), code=None):
    print(json.dumps({{"success": success, "output": output,
                      "stateChanges": list(stateChanges), "errors": list(errors)}}))
    sys.exit((0 if success else 1) if code is None else code)
"""
    return write_tool(folder, name, source + textwrap.dedent(body))


def write_tool(folder: Path, name: str, source: str, mode: int = 0o755) -> Path:
    path = folder / name
    path.write_text(source, encoding="utf-8")
    path.chmod(mode)
    return path


def shell_tool(folder: Path, name: str, body: str) -> Path:
    """A /bin/sh tool that describes itself as ``name`` and runs ``body`` otherwise."""
    describe = json.dumps({"name": name, "description": f"shell tool {name}"})
    source = f"""#!/bin/sh
if [ "$1" = "--describe" ]; then echo '{describe}'; exit 0; fi
{textwrap.dedent(body)}
"""
    return write_tool(folder, name, source)


def pid_alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for its parent to reap it counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def only_skills_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """Environment for a `monologue` subprocess: this plugin (and the template narrator)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MONOLOGUE_")}
    env.update(
        {
            "MONOLOGUE_NO_CONFIG_FILE": "1",
            "MONOLOGUE_LOAD_PLUGINS": ",".join(
                ["monologue-skills", "monologue-template", "monologue-buffer", *FIRST_PARTY]
            ),
            "MONOLOGUE_NARRATOR": "template",
            "HOME": str(tmp_path),
        }
    )
    env.update(extra)
    return env
