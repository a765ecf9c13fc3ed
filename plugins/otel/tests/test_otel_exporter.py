"""Narratives exported as span events to a loopback OTLP/HTTP collector."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from monologue_otel.export import EVENT_NAME, EXPORTER
from otlp_collector import Collector, running_collector
from pytest_monologue import PluginSandbox

from monologue.events import Event


@pytest.fixture
def collector(monkeypatch: pytest.MonkeyPatch) -> Iterator[Collector]:
    with running_collector() as running:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", running.endpoint)
        try:
            yield running
        finally:
            EXPORTER.shutdown()  # the next test's exporter reads its own endpoint


def run_agent(sandbox: PluginSandbox) -> list[Event]:
    """A short session narrated by the template narrator; its narratives."""
    events = [
        Event(
            type="tool_call",
            data={"tool_name": "Read", "tool_use_id": "t1", "input": {"file_path": "src/app.py"}},
        ),
        Event(type="tool_result", data={"tool_use_id": "t1", "output": "print('hi')"}),
        Event(
            type="tool_call",
            data={"tool_name": "Bash", "tool_use_id": "t2", "input": {"command": "pytest -q"}},
        ),
        Event(type="tool_result", data={"tool_use_id": "t2", "output": "1 passed"}),
    ]
    return sandbox.replay(events, agent="coder", narrator="template").narratives


def test_narratives_arrive_as_span_events_with_text_and_covered_ids(
    monologue_plugins: PluginSandbox, collector: Collector
) -> None:
    monologue_plugins.load("otel", "template", "buffer")
    narratives = run_agent(monologue_plugins)
    assert narratives
    received = collector.span_events(EVENT_NAME)
    assert collector.paths == ["/v1/traces"]
    assert [attrs["monologue.narrative.text"] for _, attrs in received] == [
        n.data["text"] for n in narratives
    ]
    assert [attrs["monologue.narrative.covers"] for _, attrs in received] == [
        n.data["covers"] for n in narratives
    ]
    span, attrs = received[0]
    assert span.name == "invoke_agent coder"
    assert attrs["gen_ai.agent.name"] == "coder"
    assert attrs["monologue.narrator"] == "template"
    assert attrs["gen_ai.conversation.id"] == narratives[0].session_id
    assert "src/app.py" in " ".join(a["monologue.narrative.text"] for _, a in received)


def test_inside_the_agents_own_span_narratives_go_on_it(
    monologue_plugins: PluginSandbox, collector: Collector
) -> None:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider()  # the agent's own tracing, set up as its team does
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter()))
    monologue_plugins.load("otel", "template", "buffer")
    with provider.get_tracer("agent").start_as_current_span("agent run") as agent_span:
        narratives = run_agent(monologue_plugins)
    provider.shutdown()
    received = collector.span_events(EVENT_NAME)
    assert len(received) == len(narratives)
    assert {span.name for span, _ in received} == {"agent run"}
    assert received[0][0].span_id == agent_span.get_span_context().span_id.to_bytes(8, "big")
    assert not [s for s in collector.spans if s.name.startswith("invoke_agent")]


def test_no_endpoint_no_export(
    monologue_plugins: PluginSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    monologue_plugins.load("otel", "template", "buffer")
    with monologue_plugins.session("coder", narrator="template") as session:
        assert not EXPORTER.narrating(session)


def test_a_session_is_exported_while_it_runs(
    monologue_plugins: PluginSandbox, collector: Collector
) -> None:
    monologue_plugins.load("otel")
    with monologue_plugins.session("coder", narrator="none") as session:
        assert EXPORTER.narrating(session)
    assert not EXPORTER.narrating(session)
    assert [span.name for span in collector.spans] == ["invoke_agent coder"]


def test_without_the_sdk_a_warning_says_what_to_install(
    monologue_plugins: PluginSandbox,
    collector: Collector,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)  # as if not installed
    monologue_plugins.load("otel")
    with monologue_plugins.session("coder", narrator="none") as session:
        assert not EXPORTER.narrating(session)
    assert "install monologue-otel[exporter]" in caplog.text
    assert collector.spans == []


def test_a_narrative_of_a_large_digest_exports_its_id_range(
    monologue_plugins: PluginSandbox, collector: Collector
) -> None:
    # Past 4,096 folded events a narrative names their id range instead of every id.
    from monologue import hookimpl

    class WaitsUntilTheEnd:
        @hookimpl
        def narrate(self, events: list[Event], reason: str) -> str:
            return f"All {len(events)} done." if reason == "final" else "..."

    monologue_plugins.load("otel")
    monologue_plugins.register(WaitsUntilTheEnd(), "waits")
    # Closing lets the burst's queued events ask for their turns first (each answered wait),
    # which on a loaded machine can take longer than the default 3 s: this test is about the
    # range, so the final narrative is given the time it needs.
    with monologue_plugins.session("coder", narrator="waits", buffer_cap=20, final_wait_s=60) as s:
        emitted = [s.text(f"e{n}").id for n in range(4_200)]
    ((_, attrs),) = collector.span_events(EVENT_NAME)
    first, last = attrs["monologue.narrative.covers_range"]
    assert first == emitted[0]
    assert emitted.index(last) >= 4_096
    assert len(attrs["monologue.narrative.covers"]) <= 20


def test_each_chapter_is_a_span_under_the_session(
    monologue_plugins: PluginSandbox, collector: Collector
) -> None:
    monologue_plugins.load("otel", "template", "buffer")

    def chapter(title: str, covers: str) -> Event:
        data = {"title": title, "summary": f"{title}.", "covers": [covers], "reason": "prompt"}
        return Event(type="chapter", data=data)

    events = [
        Event(type="user_message", data={"text": "read the app"}, id="01PROMPT1"),
        chapter("Read the app", "01PROMPT1"),
        Event(
            type="tool_call",
            data={"tool_name": "Read", "tool_use_id": "t1", "input": {"file_path": "src/app.py"}},
        ),
        Event(type="tool_result", data={"tool_use_id": "t1", "output": "print('hi')"}),
        Event(type="user_message", data={"text": "now test it"}, id="01PROMPT2"),
        chapter("Now test it", "01PROMPT2"),
        Event(
            type="tool_call",
            data={"tool_name": "Bash", "tool_use_id": "t2", "input": {"command": "pytest -q"}},
        ),
    ]
    monologue_plugins.replay(events, agent="coder", narrator="template")
    EXPORTER.shutdown()
    spans = {span.name: span for span in collector.spans}
    session = spans["invoke_agent coder"]
    first, second = spans["chapter Read the app"], spans["chapter Now test it"]
    assert first.parent_span_id == second.parent_span_id == session.span_id
    assert first.trace_id == session.trace_id
    assert first.end_time_unix_nano == second.start_time_unix_nano
    assert second.end_time_unix_nano >= second.start_time_unix_nano
    attributes = {kv.key: kv.value.string_value for kv in second.attributes}
    assert attributes["monologue.chapter.title"] == "Now test it"
    assert attributes["monologue.chapter.reason"] == "prompt"
