"""The plugin's entry module is imported whenever monologue loads plugins (``monologue
--help`` too): it must stay light, and never need the Claude Agent SDK."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("pydantic", "claude_agent_sdk", "rich", "anthropic", "httpx", "jinja2")


def test_loading_the_plugin_imports_nothing_heavy() -> None:
    probe = (
        "import sys, monologue_claude\n"
        "assert callable(monologue_claude.load_session)\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == ""
