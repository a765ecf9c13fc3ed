"""A real Claude Code transcript played as the hooks Claude Code would send: installed with
`monologue hook install`, one real hook process per payload, at the transcript's pace."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, MONOLOGUE, SHARED_TRACES, HookWorld, covered
from monologue_claude_hooks.install import MARK
from transcript_payloads import beats

SPEED_UP = 100.0
MAX_PAUSE_S = 0.3


def transcripts() -> list[Path]:
    found = [FIXTURES / "transcript-tool-heavy.jsonl"]
    shared = SHARED_TRACES / "claude-code-transcript" / "short.jsonl"
    return [*found, *([shared] if shared.exists() else [])]


@pytest.mark.parametrize("source", transcripts(), ids=lambda p: p.name)
def test_a_transcript_played_through_installed_hooks(
    world: HookWorld, tmp_path: Path, source: Path
) -> None:
    import subprocess

    project = tmp_path / "project"
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    before = (
        b'{\n  "model": "sonnet",\n  "hooks": {"Stop": '
        b'[{"hooks": [{"type": "command", "command": "true"}]}]}\n}\n'
    )
    settings.write_bytes(before)
    install = [MONOLOGUE, "hook", "install", "--project", str(project)]
    assert subprocess.run(install, env=world.env, capture_output=True).returncode == 0
    installed = json.loads(settings.read_text())["hooks"]
    command = {
        event: next(g["hooks"][0]["command"] for g in groups if MARK in json.dumps(g))
        for event, groups in installed.items()
        if any(MARK in json.dumps(g) for g in groups)
    }

    transcript = tmp_path / "claude" / "session.jsonl"
    transcript.parent.mkdir()
    played = beats(source, transcript, str(project))
    previous = None
    prompts: list[str] = []
    for beat in played:
        if beat.at is not None and previous is not None:
            time.sleep(min(max((beat.at - previous).total_seconds(), 0) / SPEED_UP, MAX_PAUSE_S))
        previous = beat.at or previous
        with transcript.open("a", encoding="utf-8") as handle:
            handle.writelines(line + "\n" for line in beat.lines)
        if beat.payload is None:
            continue
        hook = beat.payload["hook_event_name"]
        if hook == "UserPromptSubmit":
            prompts.append(beat.payload["prompt"])
        done = world.run_shell(command[hook], json.dumps(beat.payload).encode())
        assert done.returncode == 0 and done.stdout == b"", done.stderr
    world.wait_stopped()

    session_id = played[0].payload["session_id"]  # type: ignore[index]
    events = world.events(session_id)
    calls = [e for e in events if e.type == "tool_call"]
    wanted = {
        b.payload["tool_use_id"]
        for b in played
        if b.payload and b.payload["hook_event_name"] == "PreToolUse"
    }
    assert wanted and {c.data["tool_use_id"] for c in calls} == wanted
    assert {c.id for c in calls} <= covered(events), "a tool call no narrative covers"
    # The assistant's words came from the transcript, which no hook carries.
    assert any(e.type == "text" for e in events)
    messages = {e.id: e.data["text"] for e in events if e.type == "user_message"}
    assert sorted(messages.values()) == sorted(prompts), "each prompt once"
    chapters = [e for e in events if e.type == "chapter"]
    opened = [messages[e.data["covers"][0]] for e in chapters if e.data["reason"] == "prompt"]
    assert opened == prompts
    for chapter in chapters:
        assert 3 <= len(chapter.data["title"].split()) <= 6, chapter.data

    uninstall = [MONOLOGUE, "hook", "uninstall", "--project", str(project)]
    assert subprocess.run(uninstall, env=world.env, capture_output=True).returncode == 0
    assert settings.read_bytes() == before
