"""The project's own OpenTelemetry GenAI fixtures: OTLP JSON lines and an exported span list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from monologue_otel import read_session
from monologue_otel.reader import OtlpLineParser
from pytest_monologue import PluginSandbox

from monologue.events import Event

FIXTURES = Path(__file__).parent / "fixtures"


def brief(events: list[Event]) -> list[tuple[str, object, object]]:
    return [
        (e.type, e.data.get("tool_use_id"), e.data.get("input", e.data.get("is_error")))
        for e in events
    ]


def test_otlp_lines_with_tool_call_ids() -> None:
    events = list(read_session(FIXTURES / "otlp.jsonl"))
    assert brief(events) == [
        ("user_message", None, None),
        ("text", None, None),
        ("tool_call", "call_read_1", {"path": "docs/notes.md"}),
        ("tool_call", "call_fetch_2", {"url": "https://status.example.org/"}),
        ("tool_result", "call_read_1", False),
        ("tool_result", "call_fetch_2", True),
        ("text", None, None),
        ("completion", None, False),
    ]
    assert events[0].data["text"] == "Summarise notes.md and check the status page"
    assert events[5].data["output"] == "ConnectError: connection refused"
    assert events[2].data["span_id"] == "b000000000000001"
    assert events[-1].data["agent_name"] == "notes-agent"
    assert read_session(FIXTURES / "otlp.jsonl").agent == "notes-agent"  # names the replay
    assert [e.ts for e in events] == sorted(e.ts for e in events)


def test_span_list_without_ids_matches_executions_to_requests_in_order() -> None:
    events = list(read_session(FIXTURES / "spans.json"))
    calls = {e.data["tool_use_id"]: e.data["input"] for e in events if e.type == "tool_call"}
    assert calls == {
        "d000000000000001-1": {"command": "pytest -q"},
        "d000000000000001-2": {"path": "build/test.log"},
        "d000000000000001-3": {"command": "git status"},
    }
    results = [
        (e.data["tool_use_id"], e.data["output"], e.data["is_error"])
        for e in events
        if e.type == "tool_result"
    ]
    assert results == [
        ("d000000000000001-1", "3 passed", False),
        ("d000000000000001-2", "ok", False),
        ("d000000000000001-3", "fatal: not a git repository", True),
    ]
    assert events[-1].data["result"] == "Tests pass."


def test_an_execution_nobody_asked_for_gets_its_own_call(tmp_path: Path) -> None:
    document = json.loads((FIXTURES / "spans.json").read_text())
    del document["spans"][0]  # the model span asking for the tools
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(document))
    events = list(read_session(path))
    calls = [(e.data["tool_use_id"], e.data["tool_name"]) for e in events if e.type == "tool_call"]
    assert calls == [
        ("e000000000000001", "run_shell"),
        ("e000000000000002", "read_file"),
        ("e000000000000003", "run_shell"),
    ]


def test_watch_follows_otlp_lines(monologue_plugins: PluginSandbox, tmp_path: Path) -> None:
    monologue_plugins.load("otel")
    lines = (FIXTURES / "otlp.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "traces.jsonl"
    path.write_bytes(lines[0])
    parser, plugin = monologue_plugins.hooks.line_parser(path)
    assert plugin == "otel" and isinstance(parser, OtlpLineParser)
    first = parser.feed(lines[0], 1)
    assert [e.type for e in first][-1] == "tool_result"
    second = parser.feed(lines[1], 2)
    assert brief(first + second) == brief(list(read_session(FIXTURES / "otlp.jsonl")))
    assert monologue_plugins.hooks.line_parser(FIXTURES / "spans.json") == (None, None)


@pytest.mark.parametrize("name", ["otlp.jsonl", "spans.json"])
def test_recognised_by_content_and_narrated_by_subject(
    monologue_plugins: PluginSandbox, tmp_path: Path, name: str
) -> None:
    monologue_plugins.load("otel", "template", "buffer")
    renamed = tmp_path / "export.log"
    renamed.write_bytes((FIXTURES / name).read_bytes())
    replayed = monologue_plugins.replay(renamed, narrator="template")
    assert replayed.reader == "otel"
    for call in replayed.of_type("tool_call"):
        subject = next(iter(call.data["input"].values())).rstrip("/").split("/")[-1]
        assert subject in (replayed.narrative_of(call) or ""), subject


def _span(span_id: str, name: str, start: int, attributes: dict[str, object], **extra: object):
    return {
        "name": name,
        "context": {"trace_id": "0x" + "7" * 32, "span_id": "0x" + span_id},
        "start_time": 1_700_000_000_000_000_000 + start * 1_000_000,
        "end_time": 1_700_000_000_000_000_000 + (start + 5) * 1_000_000,
        "attributes": attributes,
        **extra,
    }


def test_each_tool_call_counts_once(tmp_path: Path) -> None:
    asked = _span(
        "e000000000000001",
        "call_llm m",
        0,
        {
            "gen_ai.operation.name": "call_llm",
            "gen_ai.output": json.dumps(
                [{"tool.name": "write_file", "tool.args": json.dumps({"path": "y.txt"})}]
            ),
        },
    )
    # The execution carries an id the model span never gave: still the same call.
    ran = _span(
        "e000000000000002",
        "execute_tool write_file",
        10,
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "write_file",
            "gen_ai.tool.call.id": "call_w1",
            "gen_ai.output": '{"written": 4}',
        },
    )
    answered = _span(
        "e000000000000003",
        "call_llm m",
        20,
        {"gen_ai.operation.name": "call_llm", "gen_ai.output": '{"final_answer": "Wrote y.txt."}'},
    )
    path = tmp_path / "trace.json"
    # An exporter's retry wrote the execution span twice.
    path.write_text(json.dumps({"spans": [asked, ran, ran, answered]}))
    events = list(read_session(path))
    assert [e.type for e in events] == ["tool_call", "tool_result", "text"]
    call, result, said = events
    assert call.data["tool_use_id"] == result.data["tool_use_id"]
    # Plain values for the narrator: the output decoded, the structured answer as words.
    assert result.data["output"] == {"written": 4}
    assert said.data["text"] == "Wrote y.txt."
    assert said.data["structured"] == {"final_answer": "Wrote y.txt."}


def test_content_on_a_details_event_is_read_once(tmp_path: Path) -> None:
    call = {"type": "tool_call", "id": "c1", "name": "grep", "arguments": {"pattern": "x"}}
    messages = json.dumps([{"role": "assistant", "parts": [call]}])
    details = {
        "name": "gen_ai.client.inference.operation.details",
        "attributes": {"gen_ai.output.messages": messages},
    }
    both = _span(
        "e000000000000004",
        "chat m",
        0,
        {"gen_ai.operation.name": "chat", "gen_ai.output.messages": messages},
        events=[details],
    )
    only_event = _span(
        "e000000000000005", "chat m", 10, {"gen_ai.operation.name": "chat"}, events=[details]
    )
    for span in (both, only_event):
        path = tmp_path / "trace.json"
        path.write_text(json.dumps({"spans": [span]}))
        calls = [e.data["input"] for e in read_session(path) if e.type == "tool_call"]
        assert calls == [{"pattern": "x"}]


def test_a_structured_answer_reads_as_plain_words() -> None:
    from monologue_otel.convert import plain

    steps = {
        "steps": [
            {"number": 1, "description": "Get the time"},
            {"number": 2, "description": "Write the year."},
        ]
    }
    assert plain(steps) == "steps: 1. Get the time. 2. Write the year."
    assert "{" not in plain({"a_b": {"c": [1, 2]}}) and "a b" in plain({"a_b": 1})
