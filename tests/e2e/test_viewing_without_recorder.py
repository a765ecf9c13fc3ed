"""Viewing is the core's: `monologue replay`, `watch` and `log` work with the recorder
uninstalled (a reader plugin is all a foreign format needs, nothing at all for monologue's
own recordings), and `replay --record` records only when a recorder is there to do it.
Needs monologue-claude, -template and -recorder installed (tox env e2e)."""

from __future__ import annotations

import json
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from e2e_support import run_command

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "sessions"
CLAUDE = EXAMPLES / "fix-retry-limit.claude.jsonl"
OWN = EXAMPLES / "fix-retry-limit.monologue.jsonl"
MONOLOGUE = Path(sys.executable).with_name("monologue")
NEEDED = {"claude", "template", "recorder"}

pytestmark = pytest.mark.skipif(
    not NEEDED.issubset(ep.name for ep in entry_points(group="monologue")),
    reason=f"needs the {', '.join(sorted(NEEDED))} plugins installed",
)


def monologue(env: dict[str, str], plugins: str, *args: str) -> tuple[list[Any], str]:
    """``monologue ARGS`` with only ``plugins`` loaded: its JSON lines and its stderr."""
    done = run_command([str(MONOLOGUE), *args], {**env, "MONOLOGUE_LOAD_PLUGINS": plugins})
    assert done.returncode == 0, f"monologue {' '.join(args)}: {done.stderr}"
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def test_a_claude_transcript_replays_with_only_its_reader_and_a_narrator(
    env: dict[str, str],
) -> None:
    listed = run_command([str(MONOLOGUE), "plugins"], {**env, "MONOLOGUE_LOAD_PLUGINS": "claude"})
    assert "claude" in listed.stdout and "recorder" not in listed.stdout

    lines, _ = monologue(env, "claude,template", "replay", "--json", str(CLAUDE))
    summary = lines[-1]
    assert summary["format"] == "claude" and summary["problem"] is None
    assert summary["narratives"] == len(lines) - 1 > 0


def test_own_recordings_replay_and_log_with_no_plugin_at_all(env: dict[str, str]) -> None:
    lines, _ = monologue(env, "", "replay", "--json", "--recorded", str(OWN))
    assert lines[-1]["format"] == "monologue"
    assert lines[-1]["narratives"] == len(lines) - 1 >= 3

    logged, _ = monologue(env, "", "log", "--json", str(OWN))
    assert logged[0]["kind"] == "header"
    assert sum(line["kind"] == "event" for line in logged) == lines[-1]["events"] - (len(lines) - 1)


def test_a_claude_transcript_is_watched_without_the_recorder(
    env: dict[str, str], tmp_path: Path
) -> None:
    live = tmp_path / "session.jsonl"
    live.write_bytes(CLAUDE.read_bytes())
    lines, _ = monologue(env, "claude,template", "watch", "--json", "--idle-exit", "0.5", str(live))
    assert lines[-1]["format"] == "claude" and lines[-1]["tool_calls"] > 0


def test_replay_record_needs_a_recorder(env: dict[str, str]) -> None:
    sessions = Path(env["MONOLOGUE_DATA_DIR"]) / "sessions"

    _, said = monologue(env, "claude,template", "replay", "--json", "--record", str(CLAUDE))
    assert "this replay was not recorded" in said
    assert not sessions.exists()

    _, said = monologue(
        env, "claude,template,recorder", "replay", "--json", "--record", str(CLAUDE)
    )
    assert "not recorded" not in said
    [recorded] = sessions.glob("*.jsonl")
    header = json.loads(recorded.read_text().splitlines()[0])
    assert header["meta"] == {"replay_of": str(CLAUDE), "source_format": "claude"}
