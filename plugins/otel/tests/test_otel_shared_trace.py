"""The shared OpenAI Agents SDK trace replays with each tool execution narrated.

Its tools are ``get_current_time`` (subject: the time zone) and ``write_file``, whose
arguments hold only the text written: the trace records no file name, so the narrative can
name no file. Skipped when ../shared is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_monologue import PluginSandbox

TRACE = (
    Path(__file__).resolve().parents[3].parent
    / "shared/traces/openai-agents-otel/OPENAI_trace.json"
)


@pytest.mark.skipif(not TRACE.exists(), reason="../shared/traces is absent")
def test_each_execution_is_matched_and_narrated(monologue_plugins: PluginSandbox) -> None:
    monologue_plugins.load("otel", "template", "buffer")
    replayed = monologue_plugins.replay(TRACE, narrator="template")
    assert replayed.reader == "otel"
    calls = replayed.of_type("tool_call")
    results = replayed.of_type("tool_result")
    # Every execution matched to the model's request, in order.
    assert [e.data["tool_use_id"] for e in calls] == [e.data["tool_use_id"] for e in results]
    assert [c.data["tool_name"] for c in calls] == ["get_current_time", "write_file"]
    assert all(replayed.narrative_of(event) for event in [*calls, *results])
    assert "America/New_York" in (replayed.narrative_of(calls[0]) or "")
