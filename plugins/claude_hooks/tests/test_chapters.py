"""Chapters: the builder on its own, and on replays of every format installed."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, MONOLOGUE, jsonl
from monologue_claude_hooks.chapters import ChapterBuilder, activity_of, prompt_title

from monologue.events import Event

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def call(
    name: str, tool_input: dict[str, Any], tool_id: str, at: int = 0, agent: str = ""
) -> Event:
    return Event(
        type="tool_call",
        data={"tool_name": name, "tool_use_id": tool_id, "input": tool_input},
        agent=agent,
        ts=T0 + timedelta(seconds=at),
    )


def result(tool_id: str, *, failed: bool = False, at: int = 0) -> Event:
    return Event(
        type="tool_result",
        data={"tool_use_id": tool_id, "output": "x", "is_error": failed},
        ts=T0 + timedelta(seconds=at),
    )


def prompt(text: str, origin: str | None = "user", at: int = 0) -> Event:
    data = {"text": text, **({"origin": origin} if origin else {})}
    return Event(type="user_message", data=data, ts=T0 + timedelta(seconds=at))


def chapters(events: list[Event]) -> list[tuple[str, str, str]]:
    builder = ChapterBuilder("claude")
    found = []
    for event in events:
        chapter = builder.feed(event)
        if chapter is not None:
            assert 3 <= len(chapter.title.split()) <= 6, chapter.title
            assert "\n" not in chapter.summary
            assert chapter.covers == [event.id]
            found.append((chapter.reason, chapter.title, chapter.summary))
    return found


def test_a_session_cut_at_prompts_plans_switches_subagents_and_idle() -> None:
    events = [
        prompt("Fix the failing retry test in config.py please"),
        prompt("<system-reminder>ignore</system-reminder>", origin="system_reminder"),
        call("Read", {"file_path": "src/config.py"}, "r1"),
        call("Grep", {"pattern": "retry"}, "r2"),
        call("Bash", {"command": "git log -3"}, "r3"),
        call("Read", {"file_path": "src/retry.py"}, "r4"),
        call("Bash", {"command": "python -m pytest tests/test_retry.py"}, "t1"),
        result("t1", failed=True),
        call("Bash", {"command": "pytest -x"}, "t2"),
        result("t2", failed=True),
        call("Bash", {"command": "pytest -q"}, "t3"),
        result("t3", failed=True),
        call("Edit", {"file_path": "src/retry.py"}, "e1"),
        call(
            "TodoWrite",
            {
                "todos": [
                    {
                        "content": "Fix retry",
                        "activeForm": "Fixing the retry limit",
                        "status": "in_progress",
                    },
                    {"content": "Run tests", "status": "pending"},
                ]
            },
            "p1",
        ),
        call("Agent", {"subagent_type": "Explore", "description": "find retry callers"}, "a1"),
        call("Grep", {"pattern": "retry("}, "g9", agent="claude/Explore"),
        result("a1"),
        call("Read", {"file_path": "README.md"}, "late", at=3600),
    ]
    found = chapters(events)
    assert [reason for reason, _, _ in found] == [
        "prompt",
        "activity",
        "activity",
        "plan",
        "subagent_start",
        "subagent_end",
        "idle",
    ]
    assert found[0][1] == "Fix the failing retry test in"
    assert found[1][1] == "Running the tests with python"
    assert found[2][1] == "Editing retry.py after failures"
    assert "from testing to fixing, starting with Edit retry.py" in found[2][2]
    assert found[3][1] == "Fixing the retry limit"
    assert found[3][2] == "The plan has 2 items, 0 done; now: Fixing the retry limit."
    assert found[4][1] == "Explore sub-agent: find retry callers"
    assert found[5] == (
        "subagent_end",
        "Back from the Explore sub-agent",
        "The Explore sub-agent finished.",
    )
    assert found[6][2] == "Work resumed after about 60 minute(s) without any event."


def test_titles_are_three_to_six_words() -> None:
    assert prompt_title("/prime") == "Your request: /prime"
    assert prompt_title("hi") == "Your new request: Hi"
    assert prompt_title("<b>fix</b> it") == "Your new request: Fix it"
    assert prompt_title("one two three four five six seven") == "One two three four five six"


def test_the_same_todo_step_twice_is_one_chapter() -> None:
    todos = {"todos": [{"content": "Write docs", "status": "in_progress"}]}
    found = chapters([call("TodoWrite", todos, "p1"), call("TodoWrite", todos, "p2")])
    assert [reason for reason, _, _ in found] == ["plan"]


@pytest.mark.parametrize(
    ("name", "tool_input", "activity"),
    [
        ("Read", {"file_path": "a"}, "exploring"),
        ("MultiEdit", {"file_path": "a"}, "editing"),
        ("Bash", {"command": "npm test"}, "testing"),
        ("bash", {"command": "cargo test --all"}, "testing"),
        ("Bash", {"command": "ls -la"}, "exploring"),
        ("Bash", {"command": "npm install"}, None),
        ("mcp__github__search", {}, "exploring"),
    ],
)
def test_activities(name: str, tool_input: dict[str, Any], activity: str | None) -> None:
    assert activity_of(name, tool_input) == activity


def replay(path: Path, record_dir: Path) -> list[dict[str, Any]]:
    env = {**os.environ, "MONOLOGUE_RECORD_DIR": str(record_dir), "MONOLOGUE_NO_CONFIG_FILE": "1"}
    done = subprocess.run(
        [MONOLOGUE, "replay", "--record", "--json", "--narrator", "template", str(path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.splitlines()[-1])
    return jsonl(Path(summary["recording"]))[1:]


def formats() -> list[Any]:
    found: list[Any] = [pytest.param(FIXTURES / "transcript-tool-heavy.jsonl", id="claude")]
    plugins = Path(__file__).resolve().parents[2]
    for name, fixture in (("sweagent", "mini.traj.json"), ("openhands", "events.jsonl")):
        path = plugins / name / "tests" / "fixtures" / fixture
        installed = importlib.util.find_spec(f"monologue_{name}") is not None
        found.append(
            pytest.param(
                path,
                id=name,
                marks=pytest.mark.skipif(
                    not (installed and path.exists()), reason=f"monologue-{name} not installed"
                ),
            )
        )
    return found


@pytest.mark.parametrize("path", formats())
def test_replays_of_every_format_get_chapters(path: Path, tmp_path: Path) -> None:
    events = replay(path, tmp_path / "first")
    chapter_events = [e for e in events if e["type"] == "chapter"]
    prompts = [
        e
        for e in events
        if e["type"] == "user_message"
        and e["data"].get("origin", "user") == "user"
        and not e["data"]["text"].lstrip().startswith(("<", "["))
    ]
    assert prompts, "the fixture has a prompt"
    opened = {c["data"]["covers"][0] for c in chapter_events if c["data"]["reason"] == "prompt"}
    assert {p["id"] for p in prompts} == opened
    assert all(c["data"]["reason"] != "idle" for c in chapter_events)

    # A recording that has chapters keeps them: none are added on its replay.
    (recording,) = (tmp_path / "first").glob("*.jsonl")
    again = replay(recording, tmp_path / "second")
    assert [c["data"] for c in again if c["type"] == "chapter"] == [
        c["data"] for c in chapter_events
    ]


def test_chapters_can_be_switched_off(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "MONOLOGUE_RECORD_DIR": str(tmp_path),
        "MONOLOGUE_NO_CONFIG_FILE": "1",
        "MONOLOGUE_CHAPTERS": "false",
    }
    path = FIXTURES / "transcript-tool-heavy.jsonl"
    done = subprocess.run(
        [MONOLOGUE, "replay", "--record", "--json", str(path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    (recording,) = tmp_path.glob("*.jsonl")
    assert '"chapter"' not in recording.read_text()


def test_monologue_log_prints_chapters_as_headings(tmp_path: Path) -> None:
    replay(FIXTURES / "transcript-tool-heavy.jsonl", tmp_path)
    (recording,) = tmp_path.glob("*.jsonl")
    env = {**os.environ, "MONOLOGUE_NO_CONFIG_FILE": "1"}
    done = subprocess.run(
        [MONOLOGUE, "log", str(recording)], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    headings = [line for line in done.stdout.splitlines() if line.startswith("## ")]
    assert headings == [
        '## Start phoenix in background: You asked: "start phoenix in background"',
        '## Scrolling back in xterm.js still does: You asked: "scrolling back in xterm.js '
        'still does not work (maybe because outer web catches it)? websearch xter…"',
    ]
