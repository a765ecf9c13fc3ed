"""Throwaway plugin distributions, built and pip-installed for a test (``monologue.testing``).

A real distribution exercises what users meet: entry-point discovery, a package that fails at
import, a plugin's command in ``monologue --help``. Installed into the running interpreter's
environment, and uninstalled afterwards.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

_PYPROJECT = """\
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "{dist}"
version = "{version}"
dependencies = ["monologue-core"]

[project.entry-points.monologue]
{name} = "{module}"

[tool.hatch.build.targets.wheel]
packages = ["{module}"]
"""


def _pip(*args: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *args],
        check=True,
        capture_output=True,
        text=True,
    )


@contextmanager
def installed_plugins(
    root: Path, dists: Mapping[str, tuple[str, str, str]], version: str = "1.0.0"
) -> Iterator[None]:
    """Build each ``{distribution: (entry-point name, module, source)}`` under ``root`` as a
    one-module plugin distribution, install them all, and uninstall them on exit."""
    for dist, (name, module, source) in dists.items():
        folder = root / dist
        (folder / module).mkdir(parents=True)
        (folder / "pyproject.toml").write_text(
            _PYPROJECT.format(dist=dist, name=name, module=module, version=version)
        )
        (folder / module / "__init__.py").write_text(textwrap.dedent(source))
        _pip("install", "--no-deps", "--no-build-isolation", str(folder))
    try:
        yield
    finally:
        _pip("uninstall", "-y", *dists)
