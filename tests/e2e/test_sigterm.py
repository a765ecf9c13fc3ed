"""SIGTERM (``docker stop``, systemd, CI runners): live sessions flush and record their
completion, then the process ends as SIGTERM ends it. A real subprocess, a real recorder."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

AGENT = """
import sys
from monologue import emit, monologue

@monologue("victim", record_dir=sys.argv[1], durability=sys.argv[2], narrator="template")
def agent():
    i = 0
    while True:  # keep emitting until terminated
        call = emit.tool_call("Bash", {"command": f"step {i}"})
        result = emit.tool_result(call.data["tool_use_id"], "ok " * 50)
        print(call.id, result.id, flush=True)
        i += 1

agent()
"""

OWN_HANDLER = """
import os, signal, sys
from monologue import emit, monologue

def handler(signum, frame):
    os.write(1, b"APP HANDLER\\n")  # not print: the signal may interrupt a print
    sys.exit(3)

signal.signal(signal.SIGTERM, handler)

@monologue("victim", record_dir=sys.argv[1], durability=sys.argv[2], narrator="none")
def agent():
    emit.text("started")
    print("READY", flush=True)
    while True:
        emit.text("waiting")

agent()
"""


def terminate(
    script: str, record_dir: Path, durability: str, env: dict[str, str]
) -> tuple[int, list[str], str]:
    """Run ``script``, SIGTERM it after 200 lines of output; its code, every line of its
    output and its error output."""
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(record_dir), durability],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    lines = []
    try:
        while len(lines) < 200:
            line = child.stdout.readline()
            assert line, child.stderr.read() if child.stderr else ""
            lines.append(line.strip())
            if line.strip() == "READY":
                break
        child.send_signal(signal.SIGTERM)
        rest, errors = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    return child.returncode, lines + rest.splitlines(), errors


@pytest.mark.parametrize("durability", ["batch", "never"])
def test_sigterm_records_every_event_and_the_completion(
    tmp_path: Path, env: dict[str, str], durability: str
) -> None:
    record_dir = tmp_path / "recordings"
    started = time.monotonic()
    code, printed, errors = terminate(AGENT, record_dir, durability, env)

    assert code == -signal.SIGTERM, errors  # ended as SIGTERM ends a process
    assert time.monotonic() - started < 20
    # Whole ids only: the signal may land while a line is being written to the pipe, and an
    # interrupted write leaves its two parts on two lines.
    emitted = [word for line in printed for word in line.split() if len(word) == 26]
    (recording,) = record_dir.glob("*.jsonl")
    events = [json.loads(line) for line in recording.read_text().splitlines()[1:]]
    recorded = {event["id"] for event in events}
    assert emitted and not [i for i in emitted if i not in recorded]  # nothing lost
    types = [event["type"] for event in events]
    completion = events[types.index("completion")]
    assert completion["data"]["is_error"] is True
    # After the completion, only the final narration's outcome.
    assert set(types[types.index("completion") + 1 :]) <= {"narrative", "narration_suppressed"}
    (error,) = [e for e in events if e["type"] == "error"]
    assert "SIGTERM" in error["data"]["message"]


def test_an_application_sigterm_handler_is_left_alone(tmp_path: Path, env: dict[str, str]) -> None:
    code, printed, errors = terminate(OWN_HANDLER, tmp_path / "recordings", "batch", env)
    assert code == 3, errors
    assert "APP HANDLER" in printed
