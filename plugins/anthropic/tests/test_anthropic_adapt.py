"""``adapt``: Anthropic SDK objects and their dict forms become events.

Stream events come from the real SDK streaming from the loopback server.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import pytest
from anthropic.types import Message
from pytest_monologue import MockNarrator, PluginSandbox
from pytest_monologue.anthropic import LoopbackAPI, Reply

from monologue import monologue
from monologue.events import Event

TOOL_INPUT = {"file_path": "src/app/config.py", "limit": 80, "note": 'ünïcode ✓ and "quotes"'}

ANSWER = (
    {
        "type": "thinking",
        "thinking": "The retry limit is probably in the config.",
        "signature": "s1",
    },
    {"type": "text", "text": "I'll look at the config."},
    {"type": "tool_use", "id": "toolu_01", "name": "Read", "input": TOOL_INPUT},
)


MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "m",
    "content": list(ANSWER),
    "stop_reason": "tool_use",
    "usage": {"input_tokens": 1, "output_tokens": 1},
}


@pytest.fixture
def adapting(monologue_plugins: PluginSandbox, mock_narrator: MockNarrator) -> PluginSandbox:
    monologue_plugins.load("anthropic")
    return monologue_plugins


def summary(events: list[Event]) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for event in events:
        data = event.data
        if event.type == "tool_call":
            out.append(("tool_call", (data["tool_name"], data["tool_use_id"], data["input"])))
        elif event.type == "tool_result":
            out.append(
                (
                    "tool_result",
                    (data["tool_use_id"], data["tool_name"], data["output"], data["is_error"]),
                )
            )
        else:
            out.append((event.type, data.get("text", data.get("message"))))
    return out


EXPECTED = [
    ("thinking", "The retry limit is probably in the config."),
    ("text", "I'll look at the config."),
    ("tool_call", ("Read", "toolu_01", TOOL_INPUT)),
]


def client(api: LoopbackAPI) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="loopback-test-key", base_url=api.base_url, max_retries=0)


def ask(api: LoopbackAPI, **extra: Any) -> dict[str, Any]:
    return {
        "model": "claude-haiku-4-5",
        "max_tokens": 200,
        "messages": [{"role": "user", "content": "Where is the retry limit set?"}],
        **extra,
    }


def test_a_message_object(adapting: PluginSandbox, loopback_api: LoopbackAPI) -> None:
    loopback_api.script(Reply.blocks(*ANSWER))
    message = client(loopback_api).messages.create(**ask(loopback_api))
    assert isinstance(message, Message)

    with adapting.session("coder") as session:
        events = session.feed(message)

    assert summary(events) == EXPECTED
    assert all(e.session_id == session.id and e.agent == "coder" for e in events)
    assert list(session.open_tool_calls) == ["toolu_01"]  # awaiting its result
    assert session.stats.tool_calls == 1


def test_a_message_as_a_dict_and_lone_content_blocks(adapting: PluginSandbox) -> None:
    with adapting.session("coder") as session:
        from_dict = session.feed(MESSAGE)
        lone = [event for block in ANSWER for event in session.feed(block)]
        redacted = session.feed({"type": "redacted_thinking", "data": "opaque"})

    assert summary(from_dict) == EXPECTED
    assert summary(lone) == EXPECTED
    assert redacted == []


def test_raw_stream_events_from_the_sdk_emit_a_tool_call_once_its_json_is_complete(
    adapting: PluginSandbox, loopback_api: LoopbackAPI
) -> None:
    loopback_api.script(Reply.blocks(*ANSWER))
    stream = client(loopback_api).messages.create(**ask(loopback_api), stream=True)

    fed: list[tuple[str, list[Event]]] = []
    with adapting.session("coder") as session:
        for raw in stream:
            fed.append((raw.type, session.feed(raw)))

    json_deltas = [events for kind, events in fed if kind == "content_block_delta"]
    assert len(json_deltas) > 5  # the tool input really arrived in pieces
    assert all(events == [] for events in json_deltas)
    emitted = [(kind, events) for kind, events in fed if events]
    assert [kind for kind, _ in emitted] == ["content_block_stop"] * 3
    assert summary([e for _, events in emitted for e in events]) == EXPECTED
    assert session.stats.unadapted == 0


def test_the_sdk_stream_helper_yields_each_event_once(
    adapting: PluginSandbox, loopback_api: LoopbackAPI
) -> None:
    loopback_api.script(Reply.blocks(*ANSWER))
    events: list[Event] = []
    with (
        adapting.session("coder") as session,
        client(loopback_api).messages.stream(**ask(loopback_api)) as stream,
    ):
        for item in stream:
            events += session.feed(item)

    assert summary(events) == EXPECTED
    assert session.stats.unadapted == 0


def test_stream_events_as_dicts(adapting: PluginSandbox) -> None:
    from pytest_monologue.anthropic import stream_events

    message = Message.model_validate(MESSAGE)
    with adapting.session("coder") as session:
        events = [e for _, data in stream_events(message) for e in session.feed(json.loads(data))]

    assert summary(events) == EXPECTED


def test_a_broken_stream_becomes_an_error_event(adapting: PluginSandbox) -> None:
    with adapting.session("coder") as session:
        session.feed({"type": "message_start", "message": {"id": "m", "model": "x", "content": []}})
        orphan = session.feed(
            {
                "type": "content_block_delta",
                "index": 4,
                "delta": {"type": "text_delta", "text": "x"},
            }
        )
        session.feed(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}},
            }
        )
        session.feed(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": '{"command": "ls'},
            }
        )
        cut = session.feed({"type": "content_block_stop", "index": 0})

    assert summary(orphan) == [
        (
            "error",
            "Anthropic stream: content_block_delta for content block 4, which was never started",
        )
    ]
    ((kind, message),) = summary(cut)
    assert kind == "error"
    assert "content block 0 (tool_use 'Bash'): its input JSON is not valid once complete" in message


@pytest.mark.parametrize(
    ("stream", "problem"),
    [
        (
            [{"type": "content_block_start", "index": 0}],
            "content_block_start 0 has no content_block",
        ),
        ([{"type": "content_block_stop"}], "content_block_stop without an integer index"),
        (
            [
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
                {"type": "message_stop"},
            ],
            "message_stop while content block 0 (text) is still open",
        ),
    ],
)
def test_other_broken_streams(
    adapting: PluginSandbox, stream: list[dict[str, Any]], problem: str
) -> None:
    with adapting.session("coder") as session:
        events = [event for item in stream for event in session.feed(item)]

    assert summary(events) == [("error", f"Anthropic stream: {problem}")]


def test_tool_results_in_a_user_message_name_their_tool(adapting: PluginSandbox) -> None:
    with adapting.session("coder") as session:
        session.feed({"role": "assistant", "content": [ANSWER[2]]})
        results = session.feed(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_01",
                        "content": [
                            {"type": "text", "text": "MAX_RETRIES = 3"},
                            {"type": "image", "source": {"type": "base64", "data": "AAAA" * 1000}},
                        ],
                    },
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_gone",
                        "content": "nope",
                        "is_error": True,
                    },
                    {"type": "text", "text": "Please also check the docs."},
                ],
            }
        )
        prompt = session.feed({"role": "user", "content": "Fix the retry limit."})

    assert summary(results) == [
        (
            "tool_result",
            (
                "toolu_01",
                "Read",
                [{"type": "text", "text": "MAX_RETRIES = 3"}, {"type": "image"}],
                False,
            ),
        ),
        ("tool_result", ("toolu_gone", None, "nope", True)),
        ("user_message", "Please also check the docs."),
    ]
    assert summary(prompt) == [("user_message", "Fix the retry limit.")]


def test_server_tool_results_pair_with_their_call(adapting: PluginSandbox) -> None:
    content = [
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"query": "pluggy"},
        },
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": {"type": "web_search_tool_result_error", "error_code": "unavailable"},
        },
    ]
    with adapting.session("coder") as session:
        events = session.feed({"type": "message", "role": "assistant", "content": content})

    assert summary(events) == [
        ("tool_call", ("web_search", "srvtoolu_1", {"query": "pluggy"})),
        (
            "tool_result",
            (
                "srvtoolu_1",
                "web_search",
                {"type": "web_search_tool_result_error", "error_code": "unavailable"},
                True,
            ),
        ),
    ]


@pytest.mark.parametrize(
    "obj",
    [
        {"type": "assistant", "message": {"content": []}},  # Claude Code stream-json: not ours
        {"type": "result", "subtype": "success"},
        {"role": "tool", "content": "x", "tool_call_id": "1"},
        {"role": "user", "content": "x", "name": "n", "extra": 1},
        "a string",
        42,
        object(),
    ],
)
def test_foreign_objects_are_left_to_other_adapters(adapting: PluginSandbox, obj: Any) -> None:
    assert adapting.hooks.adapt(obj) is None


def test_an_agent_loop_on_the_raw_messages_api_yields_into_a_decorated_generator(
    adapting: PluginSandbox, mock_narrator: MockNarrator, loopback_api: LoopbackAPI, tmp_path: Path
) -> None:
    """A real tool-use loop: stream a reply, run the tool it asks for, send the result back."""
    (tmp_path / "config.py").write_text("MAX_RETRIES = 3\n")
    loopback_api.script(
        Reply.blocks(
            {"type": "text", "text": "I'll read the config."},
            {
                "type": "tool_use",
                "name": "Read",
                "input": {"file_path": str(tmp_path / "config.py")},
            },
        ),
        Reply.ok("The retry limit is 3."),
    )
    api = client(loopback_api)

    @monologue("looper", max_buffer_size=50)
    def agent_loop(question: str) -> Iterator[Any]:
        messages: list[Any] = [{"role": "user", "content": question}]
        yield messages[0]
        while True:
            with api.messages.stream(
                model="claude-haiku-4-5", max_tokens=300, messages=messages
            ) as stream:
                yield from stream
                reply = stream.get_final_message()
            messages.append(
                {"role": "assistant", "content": [b.model_dump() for b in reply.content]}
            )
            calls = [b for b in reply.content if b.type == "tool_use"]
            if not calls:
                return
            results = {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": c.id,
                        "content": Path(str(c.input["file_path"])).read_text(),
                    }
                    for c in calls
                ],
            }
            messages.append(results)
            yield results

    consumed = list(agent_loop("Where is the retry limit set?"))

    assert consumed[0] == {"role": "user", "content": "Where is the retry limit set?"}
    (call,) = mock_narrator.calls  # the final flush, with everything
    narrated = summary([e for e in call.events if e.type != "completion"])
    tool_use_id = narrated[2][1][1]
    assert narrated == [
        ("user_message", "Where is the retry limit set?"),
        ("text", "I'll read the config."),
        ("tool_call", ("Read", tool_use_id, {"file_path": str(tmp_path / "config.py")})),
        ("tool_result", (tool_use_id, "Read", "MAX_RETRIES = 3\n", False)),
        ("text", "The retry limit is 3."),
    ]
    # The agent's own second request carried the tool result back to the API.
    second = loopback_api.requests[1].body
    assert second is not None
    assert second["messages"][-1]["content"][0]["tool_use_id"] == tool_use_id
