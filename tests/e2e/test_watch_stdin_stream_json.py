"""`claude -p … --output-format stream-json | monologue watch -`: a real pipe between two
processes, the format recognised from the stream's first lines (monologue-claude), narrated
live by the template narrator. Needs monologue-claude and -template (tox env e2e)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from importlib.metadata import entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STREAM = ROOT / "plugins" / "claude" / "tests" / "fixtures" / "stream.jsonl"
MONOLOGUE = Path(sys.executable).with_name("monologue")
NEEDED = {"claude", "template"}

pytestmark = pytest.mark.skipif(
    not NEEDED.issubset(ep.name for ep in entry_points(group="monologue")),
    reason=f"needs the {', '.join(sorted(NEEDED))} plugins installed",
)

# Stands in for `claude -p … --output-format stream-json`: one line every 50 ms.
FAKE_CLAUDE = """
import sys, time
for line in open(sys.argv[1], encoding="utf-8"):
    sys.stdout.write(line)
    sys.stdout.flush()
    time.sleep(0.05)
"""


def test_stream_json_piped_into_watch_dash_is_narrated(env: dict[str, str]) -> None:
    claude = subprocess.Popen(
        [sys.executable, "-c", FAKE_CLAUDE, str(STREAM)], stdout=subprocess.PIPE, env=env
    )
    assert claude.stdout is not None
    started = time.monotonic()
    watch = subprocess.run(
        [str(MONOLOGUE), "watch", "-", "--json", "--narrator", "template", "--timeout", "60"],
        stdin=claude.stdout,
        capture_output=True,
        text=True,
        env={**env, "MONOLOGUE_LOAD_PLUGINS": "claude,template"},
        timeout=120,
        check=False,
    )
    claude.stdout.close()
    assert claude.wait(timeout=30) == 0
    assert watch.returncode == 0, watch.stderr
    assert time.monotonic() - started < 60  # it ended with the stream, not at the timeout
    lines = [json.loads(line) for line in watch.stdout.splitlines()]
    summary = lines[-1]
    assert summary["path"] == "<stdin>" and summary["format"] == "claude"
    assert summary["tool_calls"] >= 4 and summary["problem"] is None
    narratives = [line["text"] for line in lines if line["kind"] == "narrative"]
    assert narratives and any("a.py" in text or "test" in text for text in narratives)
