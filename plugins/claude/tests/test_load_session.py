"""The ``load_session`` hook: recognising files, and replaying them through a real session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES, shared_traces, tool_use_ids
from monologue_claude import ClaudeFile, parser_for, read_session
from pytest_monologue import MockNarrator, PluginSandbox


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("transcript.jsonl", ("claude-code-transcript", False)),
        ("sidechain.jsonl", ("claude-code-transcript", False)),
        ("stream.jsonl", ("claude-stream-json", False)),
    ],
)
def test_recognises_its_formats(
    claude: PluginSandbox, name: str, expected: tuple[str, bool]
) -> None:
    source = claude.hooks.load_session(FIXTURES / name)
    assert isinstance(source, ClaudeFile)
    assert (source.format, source.array) == expected


def test_recognises_a_transcript_whose_first_line_is_longer_than_the_sniffed_bytes(
    claude: PluginSandbox, tmp_path: Path
) -> None:
    prompt = {
        "type": "user",
        "uuid": "u1",
        "sessionId": "s",
        "message": {"role": "user", "content": "please read this: " + "z" * 100_000},
    }
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps(prompt) + "\n")
    source = claude.hooks.load_session(path)
    # A prompt never answered: the transcript was cut off.
    assert [e.type for e in source or []] == ["user_message", "completion"]


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(
            '{"monologue": 1, "session_id": "s", "agent": "a", "started_at": '
            '"2026-01-01T00:00:00Z", "meta": {}}\n'
            '{"id": "x", "session_id": "s", "type": "user_message", "data": {"text": "hi"}}\n',
            id="monologue-recording",
        ),
        pytest.param('{"monologue": 1, "session_id": "s", "agent"\n', id="damaged-recording"),
        pytest.param(
            'event: message_start\ndata: {"type": "message_start"}\n\n', id="anthropic-sse"
        ),
        pytest.param('{"type": "message", "role": "assistant", "content": []}\n', id="api"),
        pytest.param("[1, 2, 3]\n", id="array-of-numbers"),
        pytest.param("just some notes\n", id="text"),
        pytest.param("", id="empty"),
    ],
)
def test_leaves_other_files_to_other_readers(
    claude: PluginSandbox, tmp_path: Path, content: str
) -> None:
    path = tmp_path / "other.jsonl"
    path.write_text(content)
    assert claude.hooks.load_session(path) is None
    assert parser_for(path) is None


def test_a_missing_file_is_left_to_the_replay_command(
    claude: PluginSandbox, tmp_path: Path
) -> None:
    assert claude.hooks.load_session(tmp_path / "missing.jsonl") is None


def replay(claude: PluginSandbox, path: Path) -> tuple[dict[str, int], list[str]]:
    """Feed a file's events to a real session, as ``monologue replay`` does."""
    source = claude.hooks.load_session(path)
    assert source is not None
    with claude.session("replay") as session:
        for event in source:
            session.dispatch(event)
            session.wait_idle()
    return session.stats.as_dict(), list(session.history)


@pytest.mark.parametrize("name", ["transcript.jsonl", "sidechain.jsonl", "stream.jsonl"])
def test_replay_accounts_for_every_tool_call(
    claude: PluginSandbox, mock_narrator: MockNarrator, name: str
) -> None:
    stats, narratives = replay(claude, FIXTURES / name)
    assert stats["tool_calls"] == len(tool_use_ids(FIXTURES / name))
    assert narratives


def test_the_example_session_replays(claude: PluginSandbox, mock_narrator: MockNarrator) -> None:
    example = Path(__file__).resolve().parents[3] / "examples" / "sessions"
    path = example / "fix-retry-limit.claude.jsonl"
    stats, narratives = replay(claude, path)
    assert stats["tool_calls"] == len(tool_use_ids(path)) == 11
    assert stats["tool_errors"] == 1
    assert narratives


@pytest.mark.parametrize(
    "path",
    shared_traces("claude-code-transcript") + shared_traces("claude-stream-json")
    or [pytest.param(None, marks=pytest.mark.skip(reason="../shared/traces is not here"))],
    ids=lambda p: p.name if isinstance(p, Path) else "none",
)
def test_shared_traces_replay_with_every_tool_call(
    claude: PluginSandbox, mock_narrator: MockNarrator, path: Path
) -> None:
    stats, narratives = replay(claude, path)
    assert stats["tool_calls"] == len(tool_use_ids(path)) > 0
    assert stats["unadapted"] == 0
    assert narratives


def test_a_growing_file_read_line_by_line_gives_the_same_events(tmp_path: Path) -> None:
    lines = (FIXTURES / "transcript.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "live.jsonl"
    path.write_bytes(lines[0])
    parser = parser_for(path)
    assert parser is not None
    live = []
    for number, line in enumerate(lines, 1):
        if number > 1:
            with path.open("ab") as handle:
                handle.write(line)
        live += parser.feed(line, number)
    *whole, end = read_session(path)
    assert [(e.type, e.agent, e.data) for e in live] == [(e.type, e.agent, e.data) for e in whole]
    # Only a whole file has an end to tell.
    assert (end.type, end.data["ending"]) == ("completion", "completed")


def test_parser_for_a_json_array_is_none(tmp_path: Path) -> None:
    path = tmp_path / "array.json"
    path.write_text(
        json.dumps([json.loads((FIXTURES / "stream.jsonl").read_text().split("\n")[0])])
    )
    assert read_session(path).array
    assert parser_for(path) is None


def test_a_refusal_says_why(claude: PluginSandbox, tmp_path: Path) -> None:
    from monologue.errors import UnknownFormat

    path = tmp_path / "other.jsonl"
    path.write_text('{"type": "message", "role": "user"}\n')
    with pytest.raises(UnknownFormat) as caught:
        claude.hooks.open_session(path)
    assert caught.value.refusals == {
        "claude": "its first message has no 'sessionId' / 'parentUuid' (a Claude Code "
        "transcript), no 'session_id' and a stream-json 'type' (claude -p output) and no "
        "'hook_event_name' (Claude Code hook payloads)"
    }
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(
        UnknownFormat, match=r"claude: not JSON lines nor a JSON array \(starts with b'hello'\)"
    ):
        claude.hooks.open_session(text)
