"""Shared helpers: the plugin loaded through its entry point, fixture paths, and an
independent count of the tool calls in a file (walking its JSON, not using the plugin)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_monologue import PluginSandbox

FIXTURES = Path(__file__).parent / "fixtures"
SHARED_TRACES = Path(__file__).resolve().parents[4] / "shared" / "traces"


@pytest.fixture
def claude(monologue_plugins: PluginSandbox) -> PluginSandbox:
    """An isolated plugin manager with monologue-claude loaded through its entry point."""
    monologue_plugins.load("claude")
    return monologue_plugins


def json_values(path: Path) -> Iterator[Any]:
    """Every message of a JSONL file or JSON array, as plain JSON."""
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        yield from json.loads(text)
        return
    for line in text.splitlines():
        if line.strip():
            yield json.loads(line)


def tool_use_ids(path: Path) -> set[str]:
    """The ids of every tool_use block anywhere in the file (sub-agents' included)."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if value.get("type") in ("tool_use", "server_tool_use"):
                found.add(value["id"])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for message in json_values(path):
        walk(message)
    return found


def shared_traces(folder: str) -> list[Path]:
    """The development traces of ../shared (absent from a fresh clone: tests skip)."""
    directory = SHARED_TRACES / folder
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.is_file())
