"""Fault injection across the default plugin set (buffer, template, recorder, gate).

Whatever breaks (the narrator, an observer plugin, the disk, the process, the file being
replayed), the same three things must hold: the agent's call completes with its own result,
the failure is reported with the name of the plugin (or file) at fault, and nothing recorded
before the fault is lost.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from e2e_support import run_command
from pytest_monologue import PluginSandbox

from monologue import current, emit, hookimpl, monologue

DEFAULTS = ("buffer", "template", "recorder", "gate")
MONOLOGUE = Path(sys.executable).with_name("monologue")
RESULT = "the agent's own result"


@pytest.fixture
def sandbox(monologue_plugins: PluginSandbox, caplog: pytest.LogCaptureFixture) -> PluginSandbox:
    monologue_plugins.load(*DEFAULTS)
    caplog.set_level(logging.WARNING, logger="monologue")
    return monologue_plugins


class Run:
    """One decorated agent call: what it returned, what it emitted, what was recorded."""

    def __init__(self, record_dir: Path) -> None:
        self.record_dir = record_dir
        self.emitted: list[str] = []
        self.session_id = ""
        self.result: Any = None
        self.elapsed = 0.0

    def recorded(self) -> list[dict[str, Any]]:
        path = self.record_dir / f"{self.session_id}.jsonl"
        lines = path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines[1:]]

    def recorded_ids(self) -> list[str]:
        return [event["id"] for event in self.recorded()]


def run_agent(tmp_path: Path, steps: int = 8, **config: Any) -> Run:
    run = Run(tmp_path / "recordings")

    @monologue("fault-agent", record_dir=run.record_dir, durability="always", **config)
    def agent() -> str:
        session = current()
        assert session is not None
        run.session_id = session.id
        for i in range(steps):
            call = emit.tool_call("Read", {"file_path": f"src/module_{i}.py"})
            assert call is not None
            result = emit.tool_result(call.data["tool_use_id"], f"def f{i}(): ...")
            assert result is not None
            run.emitted += [call.id, result.id]
        said = emit.text("All modules read.")
        assert said is not None
        run.emitted.append(said.id)
        return RESULT

    started = time.monotonic()
    run.result = agent()
    run.elapsed = time.monotonic() - started
    return run


def assert_nothing_lost(run: Run) -> None:
    assert run.result == RESULT
    recorded = run.recorded_ids()
    assert [i for i in recorded if i in set(run.emitted)] == run.emitted


class FaultyNarrator:
    def __init__(self, mode: str) -> None:
        self.mode = mode

    @hookimpl
    def narrate(self) -> Any:
        if self.mode == "raise":
            raise ConnectionError("the model is down")
        if self.mode == "hang":
            time.sleep(30)
        return 42  # not text


@pytest.mark.parametrize(
    ("mode", "logged"),
    [
        ("raise", "plugin 'faulty' raised in narrate: ConnectionError: the model is down"),
        ("hang", "plugin 'faulty' raised in narrate: TimeoutError: no answer within"),
        ("non-text", "plugin 'faulty' raised in narrate: TypeError: narrate must return str"),
    ],
)
def test_a_failing_narrator(sandbox, tmp_path, caplog, mode, logged):
    sandbox.register(FaultyNarrator(mode), "faulty")
    run = run_agent(tmp_path, narrator="faulty", narrate_timeout_s=0.5)
    assert_nothing_lost(run)
    assert run.elapsed < 10  # bounded by the timeout, never by the 30 s hang
    assert logged in caplog.text
    suppressed = [e for e in run.recorded() if e["type"] == "narration_suppressed"]
    assert suppressed
    assert "narrator 'faulty' failed" in suppressed[0]["data"]["reason"]


BROADCAST_HOOKS = [
    "on_session_start",
    "on_event",
    "on_tool_call",
    "on_tool_result",
    "on_text",
    "on_narrative",
    "on_complete",
]


def saboteur(hook: str) -> object:
    def broken(**_: Any) -> None:
        raise RuntimeError(f"sabotage in {hook}")

    broken.__name__ = hook
    namespace = type("Saboteur", (), {hook: staticmethod(hookimpl(broken))})
    return namespace()


@pytest.mark.parametrize("hook", BROADCAST_HOOKS)
def test_a_plugin_raising_in_a_broadcast_hook(sandbox, tmp_path, caplog, hook):
    sandbox.register(saboteur(hook), "saboteur")
    run = run_agent(tmp_path)
    assert_nothing_lost(run)
    assert f"plugin 'saboteur' raised in {hook}: RuntimeError: sabotage in {hook}" in caplog.text
    # The others kept working: narration was delivered and recorded.
    assert any(e["type"] == "narrative" for e in run.recorded())


class FailingDisk:
    """``os`` for the recorder's writer, whose ``write`` fails with ENOSPC after N writes."""

    def __init__(self, writes_allowed: int) -> None:
        self.left = writes_allowed

    def write(self, fd: int, data: Any) -> int:
        if self.left <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.left -= 1
        return os.write(fd, data)

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


def test_the_recorder_disk_filling_up(sandbox, tmp_path, caplog, monkeypatch):
    from monologue_recorder import writer

    monkeypatch.setattr(writer, "os", FailingDisk(writes_allowed=1 + 5))  # header, 5 events
    run = run_agent(tmp_path)
    assert run.result == RESULT
    assert "monologue-recorder: cannot write the recording" in caplog.text
    assert "the disk is full" in caplog.text
    # What was written before the fault (the header and five events, narratives among them)
    # is intact and readable, in order.
    recorded = run.recorded_ids()
    assert len(recorded) == 5
    ours = [i for i in recorded if i in set(run.emitted)]
    assert ours == run.emitted[: len(ours)]
    assert ours


AGENT = """
import sys, time
from monologue import emit, monologue

@monologue("victim", record_dir=sys.argv[1], durability="batch")
def agent():
    for i in range(40):
        call = emit.tool_call("Bash", {"command": f"step {i}"})
        emit.tool_result(call.data["tool_use_id"], "ok")
    time.sleep(1.0)  # longer than the batch window: the 80 events are on disk
    print("READY", flush=True)
    i = 0
    while True:  # keep recording until killed mid-stream
        call = emit.tool_call("Bash", {"command": f"more {i}"})
        emit.tool_result(call.data["tool_use_id"], "x" * 500)
        i += 1

agent()
"""


def test_sigkill_during_recording(tmp_path, env):
    record_dir = tmp_path / "recordings"
    child = subprocess.Popen(
        [sys.executable, "-c", AGENT, str(record_dir)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "READY"
        time.sleep(0.3)  # recording at full speed by now
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    (recording,) = record_dir.glob("*.jsonl")
    done = run_command(
        [str(MONOLOGUE), "replay", "--json", "--narrator", "none", str(recording)], env
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["kind"] == "summary"
    assert summary["tool_calls"] >= 40  # everything flushed before READY survived the kill
    assert (
        summary["tool_calls"] == summary["tool_results"]
        or summary["tool_calls"] - 1 == (summary["tool_results"])
    )


@pytest.fixture
def recording(sandbox, tmp_path) -> Path:
    run = run_agent(tmp_path, steps=6)
    return run.record_dir / f"{run.session_id}.jsonl"


def corrupt(path: Path, lineno: int, new_line: bytes | None, tmp_path: Path) -> Path:
    """A copy of the recording with line ``lineno`` (1-based) replaced, or cut mid-line."""
    lines = path.read_bytes().splitlines()
    if new_line is None:
        lines[lineno - 1] = lines[lineno - 1][: len(lines[lineno - 1]) // 2]
        lines = lines[:lineno]
        data = b"\n".join(lines)  # no final newline: the line was being written
    else:
        lines[lineno - 1] = new_line
        data = b"\n".join(lines) + b"\n"
    out = tmp_path / f"corrupt-{lineno}.jsonl"
    out.write_bytes(data)
    return out


def replay(path: Path, env: dict[str, str], *options: str) -> tuple[int, dict[str, Any], str]:
    command = [str(MONOLOGUE), "replay", "--json", "--narrator", "none", *options, str(path)]
    done = run_command(command, env)
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["kind"] == "summary"
    return done.returncode, summary, done.stderr


def test_a_truncated_recording_replays_with_a_warning(recording, tmp_path, env):
    lines = len(recording.read_bytes().splitlines())
    cut = corrupt(recording, lines, None, tmp_path)
    code, summary, stderr = replay(cut, env)
    assert code == 0
    assert f"{cut}:{lines}" in stderr
    assert summary["events"] == lines - 2  # all but the header and the cut line


@pytest.mark.parametrize(
    ("bad_line", "problem"),
    [
        (b'{"type": "text", "data": {"text": "caf\xe9"}}', "not valid UTF-8"),
        (b'{"type": "tool_call", "data": {"tool_name": 5, "tool_use_id": "x"}}', "data.tool_name"),
        (b'{"type": "text", "data": {"text": "' + b"x" * (9 * 1024 * 1024) + b'"}}', "8 MiB"),
    ],
    ids=["invalid-utf8", "wrong-types", "several-MB-line"],
)
def test_a_corrupt_recording_names_file_and_line_and_keeps_what_came_before(
    recording, tmp_path, env, bad_line, problem
):
    bad = corrupt(recording, 6, bad_line, tmp_path)
    code, summary, stderr = replay(bad, env, "--strict")  # without it: skipped, see below
    assert code == 1
    assert f"{bad}:6: " in stderr
    assert problem in stderr
    assert summary["events"] == 4  # lines 2 to 5, before the bad one, were all replayed

    code, summary, stderr = replay(bad, env)
    assert code == 0 and summary["skipped_lines"] == 1
    assert f"{bad}:6: " in stderr and problem in stderr
    assert summary["events"] == len(bad.read_bytes().splitlines()) - 2  # all but header, bad
