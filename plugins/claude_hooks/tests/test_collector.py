"""The collector in this process: sessions closed when idle, the narratives' log."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from conftest import jsonl
from monologue_claude_hooks.collector import Collector
from monologue_claude_hooks.folder import Folder


def test_an_idle_session_is_closed_with_its_final_narration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MONOLOGUE_RECORD_DIR", str(tmp_path / "recorded"))
    monkeypatch.setenv("MONOLOGUE_NARRATOR", "template")
    with Collector(Folder(tmp_path), idle_s=0.2) as collector:
        idle_session(collector, tmp_path)
    events = jsonl(tmp_path / "recorded" / "idle-1.jsonl")[1:]
    kinds = [e["type"] for e in events]
    assert kinds[:2] == ["user_message", "chapter"] and "completion" in kinds
    assert any(e["type"] == "narrative" for e in events)
    shown = (tmp_path / "narratives.log").read_text()
    assert "[idle-1] ## Count the lines of main.py" in shown
    assert "wc -l main.py" in shown


def idle_session(collector: Collector, tmp_path: Path) -> None:
    base = {"session_id": "idle-1", "cwd": str(tmp_path)}
    collector.handle(
        json.dumps(
            {**base, "hook_event_name": "UserPromptSubmit", "prompt": "count the lines of main.py"}
        ).encode()
    )
    collector.handle(
        json.dumps(
            {
                **base,
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": "wc -l main.py"},
                "tool_use_id": "b1",
            }
        ).encode()
    )
    collector.close_idle()
    assert "idle-1" in collector.sessions  # not idle yet
    time.sleep(0.3)
    collector.close_idle()
    assert collector.sessions == {}
