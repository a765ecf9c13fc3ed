"""A tool's descendants that leave its session (``setsid``, a double fork) are still killed,
and the call returns at once or at its timeout whatever they hold open: real processes."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from pytest_monologue import PluginSandbox
from skills_fixtures import python_tool, shell_tool

from monologue import SkillCall

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the subreaper is Linux's")

PYTHON = sys.executable

# Each escape writes its process's pid to a file of its own, once it has left the session, and
# keeps the tool's stdout open (as a daemon started without redirection does).
ESCAPES = {
    "shell setsid": "setsid sh -c 'echo $$ > {pids}/escaped; exec sleep 1000' &",
    "python os.setsid": (
        f"{PYTHON} -c 'import os, time; os.setsid(); "
        'open("{pids}/escaped", "w").write(str(os.getpid())); time.sleep(1000)\' &'
    ),
    "double fork": (
        f"{PYTHON} -c 'import os, sys, time\n"
        "if os.fork(): sys.exit(0)\n"
        "os.setsid()\n"
        "if os.fork(): sys.exit(0)\n"
        'open("{pids}/escaped", "w").write(str(os.getpid())); time.sleep(1000)\' &'
    ),
}

WAIT_FOR_ESCAPE = "while [ ! -s {pids}/escaped ]; do sleep 0.01; done"


def gone(pid: int, within_s: float = 3.0) -> bool:
    """Not running and not a zombie: killed and reaped. A killed orphan is reaped by
    whoever adopted it (the runner, or PID 1 once the runner is no longer a subreaper), a
    moment after the call returns: wait a little for that, never for the process to end."""
    deadline = time.monotonic() + within_s
    while Path(f"/proc/{pid}").exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def run(pm: PluginSandbox, name: str) -> tuple[Any, float]:
    """The call's result and duration; a call still blocked after 20 s fails the test (a
    runner that waits on a pipe an escaped process holds would hang for good)."""
    done: list[Any] = []
    started = time.monotonic()
    call = SkillCall(name=name, args={}, id="a1")
    caller = threading.Thread(
        target=lambda: done.append(pm.hooks.execute_skill(None, call, None)), daemon=True
    )
    caller.start()
    caller.join(20)
    assert done, "the call hangs"
    return done[0], time.monotonic() - started


@pytest.mark.parametrize("escape", ESCAPES)
def test_an_escaped_descendant_of_a_tool_that_times_out_is_killed(
    skills_pm: PluginSandbox, tools_dir: Path, tmp_path: Path, monkeypatch, escape: str
) -> None:
    monkeypatch.setenv("MONOLOGUE_TOOL_TIMEOUT", "2")
    pids = tmp_path
    shell_tool(
        tools_dir,
        "hangs",
        f"""
        echo $$ > {pids}/tool
        {ESCAPES[escape].format(pids=pids)}
        {WAIT_FOR_ESCAPE.format(pids=pids)}
        sleep 1000
        """,
    )
    result, took = run(skills_pm, "hangs")
    assert not result.ok and "timed out after 2 s" in result.error
    assert took < 2 + 3, took
    for name in ("tool", "escaped"):
        pid = int((pids / name).read_text())
        assert gone(pid), (name, pid)


@pytest.mark.parametrize("escape", ESCAPES)
def test_a_tool_that_answers_at_once_returns_at_once_and_its_escaped_descendant_dies(
    skills_pm: PluginSandbox, tools_dir: Path, tmp_path: Path, escape: str
) -> None:
    pids = tmp_path
    shell_tool(
        tools_dir,
        "quick",
        f"""
        echo $$ > {pids}/tool
        {ESCAPES[escape].format(pids=pids)}
        {WAIT_FOR_ESCAPE.format(pids=pids)}
        echo '{{"success": true, "output": "done"}}'
        """,
    )
    result, took = run(skills_pm, "quick")
    assert result.ok, result.error
    assert result.output == "done"
    assert took < 1.5, took  # the timeout is 10 s: nothing waited on the escaped pipe holder
    for name in ("tool", "escaped"):
        pid = int((pids / name).read_text())
        assert gone(pid), (name, pid)


def test_the_running_process_is_a_subreaper_only_while_a_tool_runs(
    skills_pm: PluginSandbox, tools_dir: Path
) -> None:
    python_tool(
        tools_dir,
        "probe",
        """
        import ctypes
        libc = ctypes.CDLL(None)
        value = ctypes.c_int()
        libc.prctl(37, ctypes.byref(value), 0, 0, 0)  # PR_GET_CHILD_SUBREAPER, of the tool
        reply(output=value.value)
        """,
    )
    result, _ = run(skills_pm, "probe")
    assert result.ok, result.error
    assert result.output == 0  # the setting is not inherited by the tool
    import ctypes

    value = ctypes.c_int()
    ctypes.CDLL(None).prctl(37, ctypes.byref(value), 0, 0, 0)
    assert value.value == 0  # and is off again in this process once the tool is done


def test_a_descendant_one_walk_of_the_tree_misses_is_still_killed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A process re-parented to this one while the tree is walked (its parent exiting at
    # that moment) is missed by that walk: an empty search is confirmed by another.
    import subprocess

    from monologue_skills import reaping

    walks = reaping._descendants
    missed: list[int] = []

    def missing_once(pid: int) -> list[int]:
        found = walks(pid)
        if not missed and found:
            missed.extend(found)
            return []
        return found

    with reaping.ToolTree({"PATH": "/usr/bin:/bin"}) as tree:
        escaped = subprocess.Popen(["sleep", "1000"], env=tree.env)
        monkeypatch.setattr(reaping, "_descendants", missing_once)
        tree.kill()
    assert escaped.pid in missed
    assert gone(escaped.pid)  # killed and reaped by the tree
