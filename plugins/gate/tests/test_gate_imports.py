"""The plugin module is imported whenever `monologue` starts: it must stay light."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("pydantic", "jinja2", "rich", "anthropic", "httpx")


def test_importing_the_plugin_loads_nothing_heavy() -> None:
    code = (
        "import sys, monologue_gate\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
        "monologue_gate.ControllerRunner\n"
        "print('pydantic' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    heavy, runner_loaded_pydantic = done.stdout.splitlines()
    assert heavy == ""
    assert runner_loaded_pydantic == "True"  # the lazy names do load on first use
