"""End to end, through the installed `monologue` command: a recorded session replayed with
the strict gate says less than without it, and `monologue log` shows why each narration was
held. Needs monologue-gate, -recorder and -template installed (tox env e2e)."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from e2e_support import run_command

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "sessions" / "fix-retry-limit.monologue.jsonl"
MONOLOGUE = Path(sys.executable).with_name("monologue")
NEEDED = {"gate", "recorder", "template"}
SHOWN_REASON = 119
"""`monologue log` shows an event's reason on one line, cut to about this many characters."""

pytestmark = pytest.mark.skipif(
    not NEEDED.issubset(ep.name for ep in entry_points(group="monologue")),
    reason=f"needs the {', '.join(sorted(NEEDED))} plugins installed",
)

# A live agent session, recorded by the recorder, for when the shipped example is absent.
LIVE_SESSION = """
from monologue import session

with session("coder", narrator="template") as s:
    def tool(name, tool_input, output, is_error=False):
        call = s.tool_call(name, tool_input)
        s.tool_result(call.data["tool_use_id"], output, is_error=is_error)

    s.text("I'll find where the retry limit is set.")
    tool("Read", {"file_path": "README.md"}, "Retries are configurable.")
    tool("Grep", {"pattern": "max_retries"}, "src/client.py:12: max_retries = 3")
    tool("Read", {"file_path": "src/client.py"}, "max_retries = 3")
    tool("Edit", {"file_path": "src/client.py"}, "ok")
    tool("Bash", {"command": "pytest -q"}, "1 failed, 11 passed", is_error=True)
    s.error("pytest failed: test_retries expects 5 retries")
    tool("Read", {"file_path": "tests/test_client.py"}, "assert client.max_retries == 5")
    tool("Edit", {"file_path": "src/client.py"}, "ok")
    tool("Bash", {"command": "pytest -q"}, "12 passed")
    tool("Bash", {"command": "git diff --stat"}, "src/client.py | 2 +-")
    s.text("The retry limit is now 5 and the tests pass.")
    s.emit("agent_result", {"outcome": "retry limit raised to 5"})
"""


def monologue(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = run_command([str(MONOLOGUE), *args], env)
    assert done.returncode == 0, f"monologue {' '.join(args)}: {done.stderr}"
    return done


@pytest.fixture
def recording(tmp_path: Path, env: dict[str, str]) -> Path:
    if EXAMPLE.is_file():
        return EXAMPLE
    live = tmp_path / "live"
    subprocess.run(
        [sys.executable, "-c", LIVE_SESSION],
        env={**env, "MONOLOGUE_RECORD_DIR": str(live)},
        check=True,
        timeout=120,
    )
    [path] = live.glob("*.jsonl")
    return path


def replay(env: dict[str, str], path: Path, *extra: str) -> tuple[list[dict[str, Any]], str]:
    """The narratives a JSON replay printed, and its stderr."""
    done = monologue(env, "replay", str(path), "--json", "--narrator", "template", *extra)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    summary = lines[-1]
    assert summary["kind"] == "summary"
    assert summary["problem"] is None
    narratives = [line for line in lines if line["kind"] == "narrative"]
    assert summary["narratives"] == len(narratives)
    return narratives, done.stderr


def test_strict_replay_says_less_and_the_log_shows_every_suppression_with_its_reason(
    env: dict[str, str], recording: Path, tmp_path: Path
) -> None:
    assist, _ = replay(env, recording)
    strict, _ = replay(env, recording, "-c", "gate=strict", "--record")

    assert 0 < len(strict) < len(assist)
    assert all(
        line["reason"].startswith("gate: ") or line["reason"] in {"idle", "final"}
        for line in strict
    )

    [recorded] = (tmp_path / "data" / "sessions").glob("*.jsonl")
    lines = monologue(env, "log", recorded.stem, "--json").stdout.splitlines()
    events = [json.loads(line)["event"] for line in lines if '"kind":"event"' in line]
    suppressed = [event for event in events if event["type"] == "narration_suppressed"]
    assert suppressed, "the strict replay held narrations but recorded no reason"
    for event in suppressed:
        assert event["data"]["reason"].startswith("strict: ")
        assert event["data"]["gate"] == "strict"

    shown = monologue(env, "log", recorded.stem).stdout.splitlines()
    rows = [row for row in shown if "narration_suppressed" in row]
    assert len(rows) == len(suppressed)
    for row, event in zip(rows, suppressed, strict=True):
        reason = event["data"]["reason"]
        assert (reason if len(reason) <= SHOWN_REASON else reason[:100]) in row


def test_the_mode_may_come_from_the_environment(env: dict[str, str], recording: Path) -> None:
    by_flag, _ = replay(env, recording, "-c", "gate=strict")
    by_env, _ = replay({**env, "MONOLOGUE_GATE": "strict"}, recording)
    assert [line["text"] for line in by_env] == [line["text"] for line in by_flag]


def test_a_bad_mode_stops_the_command_with_one_line(env: dict[str, str], recording: Path) -> None:
    # A bad value is handled one way (issue 26): the CLI refuses it, exit 2, one line naming
    # the key, the value and where it came from; nothing is narrated.
    done = run_command(
        [str(MONOLOGUE), "replay", str(recording), "--narrator", "template", "-c", "gate=loud"],
        env,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("monologue replay: gate = 'loud' (from command-line flags)")
    assert "'assist', 'strict' or 'llm'" in lines[0]
