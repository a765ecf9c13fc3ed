"""The harness's progress on a terminal: tasks done of all and the current stage, drawn by
rich's refresh thread, never by the listener (issue 25, progress); piped, plain lines."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from monologue_harness.display import HarnessDisplay
from pytest_monologue import PluginSandbox
from rich.console import Console
from test_agent_base import status

from monologue.cli import cli

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "harness"

TASKS = [{"id": "T001", "description": "Create greet.py"}, {"id": "T002", "description": "Tests"}]


def terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=100, color_system=None), out


def test_the_bar_names_the_stage() -> None:
    console, out = terminal()
    with HarnessDisplay(console) as display:
        display(status("phase_started", phase="parse"))
        display(status("phase_finished", phase="parse", tasks=TASKS))
        display(status("task_started", task_id="T001"))
        display(status("task_coded", task_id="T001", attempt=1))
    shown = out.getvalue()
    assert "0/2" in shown and "T001 reviewing (attempt 1)" in shown


def test_a_rejection_and_the_end_are_stages_too() -> None:
    console, out = terminal()
    with HarnessDisplay(console) as display:
        display(status("phase_finished", phase="parse", tasks=TASKS))
        display(status("task_started", task_id="T001"))
        display(status("task_rejected", task_id="T001", attempt=1, retrying=True))
    assert "T001 coding again (attempt 2)" in out.getvalue()
    console, out = terminal()
    with HarnessDisplay(console) as display:
        display(status("phase_finished", phase="parse", tasks=TASKS[:1]))
        display(status("task_finished", task_id="T001", status="validated"))
        display(status("phase_finished", phase="tasks", counts={}))
    assert "1/1" in out.getvalue() and "done" in out.getvalue()


def test_the_listener_never_draws() -> None:
    """On a terminal, a status only changes the state: the listener's thread writes nothing."""
    console, out = terminal()
    drawn_by: set[str] = set()
    write = out.write

    def spy(text: str) -> int:
        drawn_by.add(threading.current_thread().name)
        return write(text)

    out.write = spy  # type: ignore[method-assign]
    with HarnessDisplay(console) as display:
        drawn_by.clear()  # the first frame is drawn by start(), on this thread
        for _ in range(50):
            display(status("phase_finished", phase="parse", tasks=TASKS))
        listener_drew = threading.current_thread().name in drawn_by
    assert not listener_drew


def test_piped_output_is_plain_lines() -> None:
    out = io.StringIO()
    with HarnessDisplay(Console(file=out, width=100)) as display:
        display(status("phase_finished", phase="parse", tasks=TASKS))
        display(status("task_started", task_id="T001"))
        display(status("task_rejected", task_id="T001", attempt=1, retrying=True))
        display(status("task_finished", task_id="T001", status="failed", reason="rejected"))
    assert out.getvalue().splitlines() == [
        "T001 rejected on attempt 1; retrying",
        "T001 failed (rejected)",
    ]


def test_json_on_a_terminal_keeps_stdout_for_the_report(
    plugins: PluginSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--json`` on a terminal: the report alone on stdout, the progress on stderr."""
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich: standard error is a terminal
    monkeypatch.setenv("MONOLOGUE_DATA_DIR", str(tmp_path / "data"))
    result = CliRunner().invoke(
        cli,
        [
            "harness",
            "run",
            str(EXAMPLE / "tasks.md"),
            "--replay",
            str(EXAMPLE / "recordings"),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["counts"]["validated"] == 3
    assert "3/3" in result.stderr and "done" in result.stderr
