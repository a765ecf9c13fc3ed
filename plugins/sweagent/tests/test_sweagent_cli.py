"""``monologue replay`` itself, in-process, against this plugin and the template narrator."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_monologue import PluginSandbox

FIXTURES = Path(__file__).parent / "fixtures"


def test_replay_picks_this_reader_with_no_format_flag(
    monologue_plugins: PluginSandbox, monologue_cli: Callable[..., Any]
) -> None:
    monologue_plugins.load("sweagent", "template", "buffer")
    result = monologue_cli(
        "replay", str(FIXTURES / "mini.traj.json"), "--narrator", "template", "--json"
    )
    assert result.exit_code == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    text = " ".join(line["text"] for line in lines if line["kind"] == "narrative")
    assert "cat greet.py" in text and "./missing.sh" in text
    assert {line["agent"] for line in lines if line["kind"] == "narrative"} == {"mini-swe-agent"}
    summary = next(line for line in lines if line["kind"] == "summary")
    assert (summary["format"], summary["tool_calls"], summary["tool_errors"]) == ("sweagent", 2, 1)


def test_an_unknown_file_lists_what_the_reader_said(
    monologue_plugins: PluginSandbox, monologue_cli: Callable[..., Any], tmp_path: Path
) -> None:
    monologue_plugins.load("sweagent")
    path = tmp_path / "plan.json"
    path.write_text('{"steps": []}')
    result = monologue_cli("replay", str(path), "--narrator", "none")
    assert result.exit_code == 1
    assert f"{path}: unknown format; the readers tried said:" in result.stderr
    assert (
        "  - sweagent: a JSON object without a 'trajectory' or 'history' list nor "
        "mini-swe-agent marks" in result.stderr
    )
