"""A replay says how the run ended and how many bad lines it skipped, in the completion it
dispatches (``data["ending"]``, ``data["skipped_lines"]``), and goes on past a bad line in
the middle of any JSON-lines format a reader parses with ``monologue.lines.parse_lines``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_monologue import PluginSandbox
from viewing_support import Cli

from monologue import hookimpl
from monologue.errors import NotMyFormat, RecordingError
from monologue.events import Event
from monologue.lines import parse_lines


class LinesParser:
    """``TOOL <name>`` lines; anything else is refused, naming the line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = 0

    def feed(self, line: bytes, lineno: int) -> list[Event]:
        kind, _, rest = line.decode().strip().partition(" ")
        if kind == "DONE":
            return [Event(type="completion", data={"result": rest})]
        if kind != "TOOL":
            raise RecordingError(self.path, lineno, f"not a TOOL line: {kind!r}")
        self.count += 1
        return [
            Event(
                type="tool_call",
                data={"tool_name": rest, "tool_use_id": f"t{self.count}", "input": {}},
            )
        ]


class LinesReader:
    @hookimpl
    def load_session(self, path: Path) -> Iterator[Event]:
        if path.suffix != ".tools":
            raise NotMyFormat("not a .tools file")
        return parse_lines(path, LinesParser(path))


class Completions:
    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

    @hookimpl
    def on_event(self, event: Event) -> None:
        if event.type == "completion":
            self.seen.append(event.data)


@pytest.fixture
def completions(recorder: PluginSandbox) -> Completions:
    recorder.register(LinesReader(), "tools-reader")
    return recorder.register(Completions(), "completions")


def test_a_bad_line_mid_file_of_a_plugin_format_is_skipped_and_counted(
    run_cli: Cli, completions: Completions, tmp_path: Path
) -> None:
    path = tmp_path / "run.tools"
    path.write_text("TOOL Read\nGARBAGE here\nTOOL Edit\nDONE all good\n")
    result = run_cli("replay", "--json", "--narrator", "none", str(path))
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.splitlines()[-1])
    assert summary["tool_calls"] == 2 and summary["skipped_lines"] == 1
    assert f"{path}:2: not a TOOL line" in result.stderr
    assert completions.seen[-1]["ending"] == "completed"
    assert completions.seen[-1]["skipped_lines"] == 1


def test_strict_stops_there_and_the_ending_is_cut_off(
    run_cli: Cli, completions: Completions, tmp_path: Path
) -> None:
    path = tmp_path / "run.tools"
    path.write_text("TOOL Read\nGARBAGE here\nTOOL Edit\nDONE all good\n")
    result = run_cli("replay", "--strict", "--json", "--narrator", "none", str(path))
    assert result.exit_code == 1
    assert f"{path}:2: not a TOOL line" in result.stderr
    assert completions.seen[-1]["ending"] == "cut_off"


def test_a_source_without_completion_ends_cut_off(
    run_cli: Cli, completions: Completions, tmp_path: Path
) -> None:
    path = tmp_path / "run.tools"
    path.write_text("TOOL Read\nTOOL Edit\n")
    assert run_cli("replay", "--narrator", "none", str(path)).exit_code == 0
    assert completions.seen[-1] == {
        "ending": "cut_off",
        "skipped_lines": 0,
        "result": None,
        "is_error": False,
    }
