"""Real `monologue-hook run` processes, one per payload, against a real collector process."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import FIXTURES, MONOLOGUE, SHARED_TRACES, HookWorld, covered, payload_lines

SHARED_HOOKS = SHARED_TRACES / "claude-code-hooks"


def sources() -> list[Path]:
    found = [FIXTURES / "hook-payloads.jsonl"]
    if SHARED_HOOKS.is_dir():
        found += sorted(SHARED_HOOKS.glob("*.jsonl"))
    return found


def test_every_payload_is_recorded_and_narrated(world: HookWorld) -> None:
    expected: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    first = True
    for path in sources():
        for line in payload_lines(path):
            payload = json.loads(line)
            # The first through `monologue hook run`, the others through the fast script.
            command = [MONOLOGUE, "hook", "run"] if first else None
            first = False
            done = world.run(line, command)
            assert done.returncode == 0 and done.stdout == b"", done.stderr
            hook = payload["hook_event_name"]
            # 2025 payloads have no tool_use_id: then the tool's name and input identify it.
            key = payload.get("tool_use_id") or json.dumps(
                [payload.get("tool_name"), payload.get("tool_input")], sort_keys=True
            )
            expected[payload["session_id"]][hook].add(key)
    world.wait_stopped()
    assert expected
    for session_id, hooks in expected.items():
        events = world.events(session_id)
        calls = [e for e in events if e.type == "tool_call"]
        results = [e for e in events if e.type == "tool_result"]
        called = {c.data["tool_use_id"] for c in calls} | {
            json.dumps([c.data["tool_name"], c.data["input"]], sort_keys=True) for c in calls
        }
        assert hooks["PreToolUse"] <= called, session_id
        assert len(results) >= len(hooks["PostToolUse"]), session_id
        if hooks["PostToolUse"]:
            assert all(r.data["output"] not in ("", None) for r in results), session_id
        if calls or hooks["UserPromptSubmit"]:
            assert any(e.type == "narrative" for e in events), session_id
        assert {c.id for c in calls} <= covered(events), session_id


def test_a_malformed_payload_is_skipped_and_the_next_ones_are_not(world: HookWorld) -> None:
    for bad in (b"{not json", b"[]", b'{"hook_event_name": "Stop"}'):
        done = world.run(bad)
        assert done.returncode == 0 and done.stdout == b""
    good = {
        "session_id": "s-after-bad",
        "hook_event_name": "UserPromptSubmit",
        "cwd": "/tmp",
        "prompt": "list the files",
    }
    assert world.run(json.dumps(good).encode()).returncode == 0
    world.wait_stopped()
    assert world.log().count("payload skipped") == 3
    events = world.events("s-after-bad")
    assert [e.data["text"] for e in events if e.type == "user_message"] == ["list the files"]


def test_a_killed_collector_loses_nothing(world: HookWorld) -> None:
    lines = payload_lines(FIXTURES / "hook-payloads.jsonl")
    session = [line for line in lines if b"abc7156b" in line]
    assert len(session) >= 6
    for line in session[:3]:
        assert world.run(line).returncode == 0
    pid = world.wait_running()
    os.kill(pid, signal.SIGKILL)  # the collector this test started
    deadline = time.monotonic() + 10
    while world.folder.running_pid() is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    # With the collector dead, hooks still exit 0 at once, and spool what they carry.
    world.env["MONOLOGUE_HOOK_IDLE_S"] = "3"
    spooled = []
    for line in session[3:]:
        started = time.perf_counter()
        done = world.run(line)
        spooled.append(time.perf_counter() - started)
        assert done.returncode == 0 and done.stdout == b""
    assert max(spooled) < 5.0  # never blocked on the dead socket (speed: bench_hooks)
    world.wait_stopped()
    events = world.events(session[0].decode().split('"session_id":"')[1].split('"')[0])
    ids = {e.data.get("tool_use_id") for e in events if e.type == "tool_call"}
    wanted = {json.loads(line).get("tool_use_id") for line in session if b"PreToolUse" in line}
    assert wanted <= ids
    assert "replaying" in world.log()
    assert not world.folder.spool.exists()


@pytest.mark.parametrize(
    "flag",
    [
        "--speak",
        pytest.param(
            "--serve",
            marks=pytest.mark.skipif(
                importlib.util.find_spec("monologue_web") is None, reason="monologue-web absent"
            ),
        ),
    ],
)
def test_flags_reach_the_collector(world: HookWorld, flag: str, tmp_path: Path) -> None:
    world.env["MONOLOGUE_SPEAK_COMMAND"] = "true"
    world.env["MONOLOGUE_HOOK_SERVE_PORT"] = "0"
    if flag == "--serve":
        world.env["MONOLOGUE_HOOK_IDLE_S"] = "60"  # the viewer takes a while to come up
    payload = {
        "session_id": f"s{flag}",
        "hook_event_name": "UserPromptSubmit",
        "cwd": "/",
        "prompt": "hello there agent",
    }
    assert (
        world.run(
            json.dumps(payload).encode(),
            [str(Path(MONOLOGUE).with_name("monologue-hook")), "run", flag],
        ).returncode
        == 0
    )
    pid = world.wait_running()
    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    assert flag.encode() in cmdline
    if flag == "--serve":
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            log = world.folder.serve_log
            if log.exists() and "serving the sessions" in log.read_text():
                break
            time.sleep(0.1)
        status = subprocess.run(
            [MONOLOGUE, "hook", "status"], env=world.env, capture_output=True, text=True, timeout=60
        )
        (line,) = [x for x in status.stdout.splitlines() if x.startswith("viewer:")]
        address = line.split()[-1]
        assert address.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(address, timeout=10) as page:
            assert page.status == 200
        os.kill(pid, signal.SIGTERM)  # a clean stop takes the viewer down with it
        world.wait_stopped()
        with pytest.raises(urllib.error.URLError):
            urllib.request.urlopen(address, timeout=5)
    world.wait_stopped()
