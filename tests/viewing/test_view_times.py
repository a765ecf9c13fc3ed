"""A source without timestamps is never shown on an invented timeline, and ``log``'s header
is prose, not a Python dict."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_view_endings import completions  # noqa: F401 (the fixture, used below)
from viewing_support import Cli, json_lines


@pytest.mark.usefixtures("completions")
def test_an_untimed_source_shows_no_clock_in_log_and_its_recording_says_so(
    run_cli: Cli, tmp_path: Path, record_dir: Path
) -> None:
    source = tmp_path / "run.tools"
    source.write_text("TOOL Read\nTOOL Edit\nDONE ok\n")
    shown = run_cli("log", str(source))
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.count("--:--:--") == 3

    assert run_cli("replay", "--record", "--narrator", "none", str(source)).exit_code == 0
    [recording] = record_dir.iterdir()
    header = json_lines(recording)[0]
    assert header["meta"] == {
        "replay_of": str(source),
        "source_format": "tools-reader",
        "untimed": True,
    }
    logged = run_cli("log", str(recording)).stdout.splitlines()
    assert logged[0] == (
        f"session {header['session_id']} of agent, source without timestamps; "
        f"replay of {source} (tools-reader)"
    )
    assert "{" not in logged[0]
    assert all("--:--:--" in line for line in logged[1:4])
