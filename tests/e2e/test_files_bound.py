"""A long session leaves a few files, not one per narration: 100k events through the default
plugin set (buffer, template, recorder, gate), one tool call in eight failing, with a
narrator that asks the gate for its context slice every time it narrates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_monologue import PluginSandbox

from monologue import hookimpl

EVENTS = 100_000
MAX_FILES = 10


class AsksForContext:
    """A narrator that reads the gate's context slice (as the Anthropic narrator does)."""

    def __init__(self) -> None:
        self.contexts = 0

    @hookimpl
    def narrate(self, session: Any, events: list[Any]) -> str:
        if session.hooks.first("narrator_context", session=session)[0]:
            self.contexts += 1
        return f"I handled {len(events)} events."


def test_100k_events_with_failures_write_at_most_ten_files(
    monologue_plugins: PluginSandbox, tmp_path: Path
) -> None:
    monologue_plugins.load("buffer", "template", "recorder", "gate")
    narrator = monologue_plugins.register(AsksForContext(), "asks")
    with monologue_plugins.session(
        "coder", narrator="asks", data_dir=tmp_path / "data", record_dir=tmp_path / "sessions"
    ) as s:
        for n in range(EVENTS // 2):
            call = s.tool_call("Bash", {"command": f"make step{n % 50}"}, f"toolu_{n}")
            s.tool_result(call.data["tool_use_id"], "boom" if n % 8 == 7 else "ok", n % 8 == 7)
    files = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert s.stats.events >= EVENTS
    assert s.stats.narratives > 1 and narrator.contexts > 1, "the gate's context was asked for"
    assert any(path.suffix == ".jsonl" for path in files)
    assert any("summaries" in path.parts for path in files), "summaries were stored"
    assert len(files) <= MAX_FILES, sorted(str(path.relative_to(tmp_path)) for path in files)
