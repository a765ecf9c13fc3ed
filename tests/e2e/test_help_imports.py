"""`monologue --help` with every first-party plugin installed (the e2e environment) loads each
plugin's entry module and none of the heavy libraries: plugins import them when used."""

from __future__ import annotations

import sys
from importlib.metadata import entry_points

import pytest
from e2e_support import run_command

# The core's own test (tests/test_cli.py) checks the first five with no plugin installed.
HEAVY = (
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


def test_help_with_every_plugin_imports_no_heavy_library(env: dict[str, str]) -> None:
    code = (
        "import sys\n"
        "from monologue.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:])))"
    )
    done = run_command([sys.executable, "-c", code, *HEAVY], env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Commands:" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"
