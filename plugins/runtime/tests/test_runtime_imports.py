"""The plugin is imported whenever ``monologue`` runs: it must stay light and touch nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from runtime_fixtures import only_this_plugin_env

HEAVY = ("pydantic", "psycopg", "psycopg_pool", "rich", "anthropic", "httpx", "jinja2")


def _python(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    env = only_this_plugin_env(tmp_path)
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=True,
    )


def test_monologue_help_lists_tasks_without_heavy_imports(tmp_path: Path) -> None:
    # The first run after an install builds the plugin index (loading every plugin once);
    # every later --help reads the index and imports no plugin.
    _python(
        tmp_path,
        "from monologue.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n",
    )
    done = _python(
        tmp_path,
        "import json, sys\n"
        "from monologue.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n",
    )
    *help_lines, heavy = done.stdout.splitlines()
    assert any(line.split()[:1] == ["tasks"] for line in help_lines), done.stdout
    assert json.loads(heavy) == []


def test_importing_every_module_reads_no_data_folder(tmp_path: Path) -> None:
    modules = sorted(
        f"monologue_runtime.{path.stem}"
        for path in (Path(__file__).parents[1] / "monologue_runtime").glob("*.py")
        if path.stem != "__init__"
    )
    done = _python(
        tmp_path,
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    module = importlib.import_module(name)\n"
        "    for key, value in vars(module).items():\n"
        f"        if {str(tmp_path)!r} in str(value):\n"
        "            print(name, key, value)\n",
    )
    assert len(modules) >= 8
    assert done.stdout == ""  # no module keeps the data folder from import time
    assert sorted(p.name for p in tmp_path.iterdir()) == []
