"""``load_session``: files of Anthropic server-sent events and HTTP cassettes."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from anthropic_fixtures import FIXTURES, SHARED_TRACES
from pytest_monologue import PluginSandbox

from monologue.errors import RecordingError
from monologue.events import Event


@pytest.fixture
def reader(monologue_plugins: PluginSandbox) -> PluginSandbox:
    monologue_plugins.load("anthropic")
    return monologue_plugins


def load(sandbox: PluginSandbox, path: Path) -> Iterable[Event] | None:
    return sandbox.hooks.load_session(path)


def brief(events: Iterable[Event]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for event in events:
        data = event.data
        if event.type == "tool_call":
            out.append(("tool_call", data["tool_name"], data["input"]))
        elif event.type == "tool_result":
            out.append(("tool_result", data["tool_name"], data["output"], data["is_error"]))
        elif event.type == "completion":
            out.append(("completion", data["ending"]))
        else:
            out.append((event.type, data.get("text") or data.get("message")))
    return out


def consume_until_error(events: Iterable[Event]) -> tuple[list[Event], RecordingError]:
    good: list[Event] = []
    try:
        for event in events:
            good.append(event)
    except RecordingError as exc:
        return good, exc
    pytest.fail("no RecordingError was raised")


def test_a_stream_of_two_messages(reader: PluginSandbox) -> None:
    events = load(reader, FIXTURES / "two_messages.sse")

    assert events is not None
    assert brief(events) == [
        ("text", "I'll open the retry module."),
        ("tool_call", "Read", {"file_path": "src/retry.py", "limit": 40}),
        ("thinking", "The limit is 3; run the tests to confirm."),
        ("tool_call", "Bash", {"command": "pytest -q tests/test_retry.py"}),
        ("error", "Overloaded"),
    ]


def test_events_are_read_lazily(reader: PluginSandbox, tmp_path: Path) -> None:
    path = tmp_path / "stream.sse"
    path.write_bytes((FIXTURES / "two_messages.sse").read_bytes())
    events = load(reader, path)
    path.unlink()  # nothing was read yet: the file is opened on iteration

    assert events is not None
    with pytest.raises(FileNotFoundError):
        list(events)


@pytest.mark.parametrize(
    ("name", "good_text", "line", "problem"),
    [
        (
            "cut_short.sse",
            "I'll run the tests.",
            17,
            "the stream ends inside content block 1 (tool_use): it was cut short",
        ),
        (
            "bad_json.sse",
            "I'm checking the logs.",
            14,
            "data of event 'content_block_start' is not valid JSON: Expecting property name",
        ),
        (
            "orphan_delta.sse",
            "Looking.",
            14,
            "content_block_delta for content block 3, which was never started",
        ),
    ],
)
def test_a_broken_stream_raises_after_its_good_events(
    reader: PluginSandbox, name: str, good_text: str, line: int, problem: str
) -> None:
    path = FIXTURES / name
    events = load(reader, path)
    assert events is not None

    good, error = consume_until_error(events)

    assert brief(good) == [("text", good_text)]
    assert (error.path, error.line) == (path, line)
    assert error.problem.startswith(problem)
    assert str(error).startswith(f"{path}:{line}: {problem}")


def test_bytes_that_are_not_utf8(reader: PluginSandbox, tmp_path: Path) -> None:
    path = tmp_path / "garbled.sse"
    good_part = (FIXTURES / "two_messages.sse").read_bytes().split(b"event: content_block_stop")[0]
    path.write_bytes(good_part + b"data: \xff\xfe\n\n")
    events = load(reader, path)
    assert events is not None

    good, error = consume_until_error(events)

    assert brief(good) == []  # the text block had not stopped yet
    assert "not UTF-8 text" in error.problem
    assert error.line == good_part.count(b"\n") + 1


def test_a_cassette_of_exchanges(reader: PluginSandbox) -> None:
    events = load(reader, FIXTURES / "cassette.json")

    assert events is not None
    assert brief(events) == [
        ("user_message", "How many tests fail?"),
        ("tool_call", "Bash", {"command": "pytest -q"}),
        ("tool_result", "Bash", "2 failed, 10 passed", True),
        ("error", "HTTP 529: Overloaded"),
        ("text", "Two tests fail."),  # the retried request repeats the result: read once
        ("completion", "completed"),
    ]


def test_a_bad_exchange_names_its_number(reader: PluginSandbox) -> None:
    events = load(reader, FIXTURES / "bad_cassette.json")
    assert events is not None

    good, error = consume_until_error(events)

    assert [kind for kind, *_ in brief(good)] == ["user_message", "tool_call"]
    assert error.problem.startswith("exchange 2: response.status_code: ")


def test_a_cut_response_body_in_a_cassette(reader: PluginSandbox) -> None:
    events = load(reader, FIXTURES / "cut_cassette.json")
    assert events is not None

    good, error = consume_until_error(events)

    assert brief(good) == [("user_message", "How many tests fail?")]
    assert "exchange 1, line" in error.problem
    assert "ends inside content block 0 (text)" in error.problem


def test_a_cassette_that_is_not_json(reader: PluginSandbox, tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('[\n {"request": {"url": "https://api.anthropic.com/v1/messages"},\n oops')
    events = load(reader, path)
    assert events is not None

    _, error = consume_until_error(events)

    assert error.line == 3
    assert "not valid JSON" in error.problem


@pytest.mark.parametrize(
    ("content", "line", "problem"),
    [
        (b'event: message_start\ndata: ["message_start"]\n\n', 2, "is not a JSON object"),
        (b'[{"request": {"url": "/v1/messages"}}, \xff]', None, "not UTF-8 text"),
        (b'[{"request": {"url": "/v1/messages"}, "response": {}}][]', 1, "not valid JSON"),
    ],
)
def test_more_broken_files(
    reader: PluginSandbox, tmp_path: Path, content: bytes, line: int | None, problem: str
) -> None:
    path = tmp_path / "broken"
    path.write_bytes(content)
    events = load(reader, path)
    assert events is not None

    good, error = consume_until_error(events)

    assert good == []
    assert error.line == line
    assert problem in error.problem


def test_an_exchange_that_is_not_an_object(reader: PluginSandbox, tmp_path: Path) -> None:
    path = tmp_path / "strings.json"
    path.write_text('["/v1/messages", "request"]')
    events = load(reader, path)
    assert events is not None

    _, error = consume_until_error(events)

    assert error.problem.startswith("exchange 1: ")


@pytest.mark.parametrize(
    "content",
    [
        '{"monologue": 1, "session_id": "s1"}\n',
        '[{"type": "assistant", "message": {}}]',
        "event: something_else\ndata: {}\n\n",
        "",
    ],
)
def test_other_files_are_left_to_other_readers(
    reader: PluginSandbox, tmp_path: Path, content: str
) -> None:
    path = tmp_path / "other.txt"
    path.write_text(content)
    assert load(reader, path) is None
    assert load(reader, tmp_path) is None  # a folder
    assert load(reader, tmp_path / "missing.sse") is None


def test_events_replay_through_a_session(
    reader: PluginSandbox, monologue_plugins: PluginSandbox
) -> None:
    from pytest_monologue import MockNarrator

    narrator = monologue_plugins.register(MockNarrator(), "mock")
    events = load(reader, FIXTURES / "two_messages.sse")
    assert events is not None
    with monologue_plugins.session("replayed", narrator="mock", max_buffer_size=50) as session:
        for event in events:
            session.dispatch(event)

    assert session.stats.tool_calls == 2
    (call,) = narrator.calls
    assert [e.type for e in call.events] == [
        "text",
        "tool_call",
        "thinking",
        "tool_call",
        "error",
        "completion",
    ]
    assert all(e.session_id == session.id and e.agent == "replayed" for e in call.events)


shared = pytest.mark.skipif(
    not (SHARED_TRACES / "anthropic-sse").is_dir(), reason="../shared/traces is not present"
)


@shared
def test_shared_trace_tool_use_response(reader: PluginSandbox) -> None:
    events = load(reader, SHARED_TRACES / "anthropic-sse" / "tool_use_response.txt")

    assert events is not None
    assert brief(events) == [
        ("text", "I'll check the current weather in Paris for you."),
        ("tool_call", "get_weather", {"location": "Paris"}),
    ]


@shared
def test_shared_trace_tool_runner_cassette(reader: PluginSandbox) -> None:
    events = load(
        reader, SHARED_TRACES / "anthropic-sse" / "tool_runner_stream_2turn_555fb399.json"
    )

    assert events is not None
    found = brief(events)
    assert found[:3] == [
        ("user_message", "What is the weather in SF?"),
        ("tool_call", "get_weather", {"location": "San Francisco, CA", "units": "f"}),
        (
            "tool_result",
            "get_weather",
            '{"location": "San Francisco, CA", "temperature": "68\\u00b0F", "condition": "Sunny"}',
            False,
        ),
    ]
    assert found[3][0] == "text"
    assert found[3][1].startswith("The weather in San Francisco, CA is currently:")
    assert found[4:] == [("completion", "completed")]


def test_a_daemon_log_tells_the_main_request_not_its_side_requests(
    reader: PluginSandbox,
) -> None:
    """Claude Code's traffic: a quota probe and a topic check come before the main request,
    another probe between its two turns; the main request marks its last message for the
    cache, and the next request moves the mark."""
    events = list(load(reader, FIXTURES / "daemon_log.json") or [])

    assert brief(events) == [
        ("user_message", "<system-reminder>As you answer the user's questions, you can use "
         "the following context.</system-reminder>"),
        ("user_message", "fix the retry loop in src/retry.py"),
        ("tool_call", "Read", {"file_path": "src/retry.py"}),
        ("tool_result", "Read", "for attempt in range(3): ...", False),
        ("text", "The loop retries three times."),
        ("completion", "completed"),
    ]  # fmt: skip
    origins = [e.data["origin"] for e in events if e.type == "user_message"]
    assert origins == ["system_reminder", "user"]
    assert not any("quota" in str(e.data.get("text")) for e in events)
