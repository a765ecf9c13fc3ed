"""Claude Code hooks: the whole ``monologue-hook run`` process, stdin to exit, next to
``python -c pass`` (the hook runs on every tool call: its p99 must stay under 50 ms). The
command timed is the one ``monologue hook install`` writes: ``python -S -I monologue_hook.py
run``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .harness import Context, Figure, median, percentile

_PAYLOAD = {
    "session_id": "bench-hooks",
    "transcript_path": "/nonexistent/transcript.jsonl",
    "cwd": "/tmp",
    "hook_event_name": "PostToolUse",
    "tool_name": "Read",
    "tool_input": {"file_path": "/tmp/example.py"},
    "tool_response": {
        "type": "text",
        "file": {"filePath": "/tmp/example.py", "content": "print('hello')\n" * 200},
    },
    "tool_use_id": "toolu_bench",
}


def _samples(
    args: list[str], payload: bytes, env: dict[str, str], repeats: int, before: object = None
) -> list[float]:
    found = []
    for _ in range(repeats):
        if callable(before):
            before()
        started = time.perf_counter()
        subprocess.run(args, input=payload, env=env, check=True, capture_output=True)
        found.append(time.perf_counter() - started)
    return found


def _rows(name: str, samples: list[float], note: str, target: bool) -> list[Figure]:
    return [
        Figure(
            group="hooks", name=f"{name} p50", value=median(samples) * 1e3, unit="ms", note=note
        ),
        Figure(
            group="hooks",
            name=f"{name} p99",
            value=percentile(samples, 99) * 1e3,
            unit="ms",
            target=50 if target else None,
            compare="max" if target else None,
            note=note,
        ),
    ]


def _wait_socket(folder: Path, timeout: float = 60.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pid_text = (
            (folder / "collector.pid").read_text().strip()
            if (folder / "collector.pid").exists()
            else ""
        )
        if (folder / "collector.sock").exists() and pid_text.isdigit():
            return int(pid_text)
        time.sleep(0.05)
    raise RuntimeError(f"no collector came up in {folder}")


def run(ctx: Context) -> list[Figure]:
    repeats = 30 if ctx.quick else 200
    import monologue_hook

    # What `monologue hook install` writes into settings.json, and the console script.
    hook = [sys.executable, "-S", "-I", monologue_hook.__file__]
    script = str(Path(sys.executable).with_name("monologue-hook"))
    payload = json.dumps(_PAYLOAD).encode()
    work = Path(tempfile.mkdtemp(prefix="mh-bench-"))
    up, down = work / "up", work / "down"
    down.mkdir()
    env = {
        **os.environ,
        "MONOLOGUE_NO_CONFIG_FILE": "1",
        "MONOLOGUE_NARRATOR": "template",
        "MONOLOGUE_RECORD_DIR": str(work / "recorded"),
        "MONOLOGUE_HOOK_IDLE_S": "120",
    }
    python = _samples([sys.executable, "-c", "pass"], b"", env, repeats)

    up_env = {**env, "MONOLOGUE_HOOK_DIR": str(up)}
    subprocess.run([*hook, "run"], input=payload, env=up_env, check=True)
    pid = _wait_socket(up)
    try:
        sent = _samples([*hook, "run"], payload, up_env, repeats)
        scripted = _samples([script, "run"], payload, up_env, repeats)
        cli = _samples(
            [sys.executable, "-m", "monologue", "hook", "run"],
            payload,
            up_env,
            max(5, repeats // 10),
        )
    finally:
        os.kill(pid, signal.SIGTERM)  # the collector this benchmark started

    # The collector down: the payload is spooled; a fresh start marker stops each run from
    # starting a collector, as when one is already on its way up.
    marker = down / "starting"
    spooled = _samples(
        [*hook, "run"],
        payload,
        {**env, "MONOLOGUE_HOOK_DIR": str(down)},
        repeats,
        before=marker.touch,
    )
    base = f"median {median(python) * 1e3:.1f} ms for python -c pass; {repeats} runs"
    return [
        *_rows("python -c pass", python, f"{repeats} runs", target=False),
        *_rows("monologue-hook run (collector up)", sent, base, target=True),
        *_rows("monologue-hook run (collector down, spooled)", spooled, base, target=True),
        Figure(
            group="hooks",
            name="monologue-hook console script (collector up) p50",
            value=median(scripted) * 1e3,
            unit="ms",
            note="site-packages scanned: no -S",
        ),
        Figure(
            group="hooks",
            name="monologue hook run (the full CLI) p50",
            value=median(cli) * 1e3,
            unit="ms",
            note="what the installed hooks avoid by running monologue-hook",
        ),
    ]
