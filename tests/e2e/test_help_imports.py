"""`monologue --help` and `monologue plugins` with every first-party plugin installed (the e2e
environment) import no plugin module and none of the heavy libraries: the first run indexes
the plugins (core/monologue/plugins/_index.py), later runs read the index."""

from __future__ import annotations

import ast
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from e2e_support import run_command

# The core's own test (tests/test_cli.py) checks the first five and pluggy with no plugin
# installed.
HEAVY = (
    "pluggy",
    "pydantic",
    "jinja2",
    "rich",
    "anthropic",
    "httpx",
    "asyncio",
    "claude_agent_sdk",
    "psycopg",
    "starlette",
    "jsonschema",
    "opentelemetry",
    "detect_secrets",
)

pytestmark = pytest.mark.skipif(
    len(entry_points(group="monologue")) < 10,
    reason="needs the first-party plugins installed (tox env e2e)",
)


@pytest.mark.parametrize("args", [["--help"], ["plugins"]])
def test_help_and_plugins_with_every_plugin_import_no_plugin_module(
    args: list[str], env: dict[str, str], tmp_path: Path
) -> None:
    code = (
        "import sys\n"
        "from monologue.cli import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
        "print(sorted({m.split('.')[0] for m in sys.modules}))"
    )
    env = {**env, "MONOLOGUE_CACHE_DIR": str(tmp_path / "cache")}
    cold = run_command([sys.executable, "-c", code], env, timeout=60)
    assert cold.returncode == 0, cold.stderr
    warm = run_command([sys.executable, "-c", code], env, timeout=60)
    assert warm.returncode == 0, warm.stderr
    *shown, modules = warm.stdout.strip().splitlines()
    assert shown == cold.stdout.strip().splitlines()[:-1]
    imported = set(ast.literal_eval(modules))
    assert not imported & set(HEAVY)
    assert not {name for name in imported if name.startswith("monologue_")}
    if args == ["--help"]:
        assert "Commands:" in shown
        for command in ("serve", "skills", "tasks", "harness", "sessions"):
            assert any(line.strip().startswith(command + " ") for line in shown), command
    else:
        assert len([line for line in shown if " loaded " in line]) >= 10
