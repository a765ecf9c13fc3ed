"""``monologue-default`` installs the default plugin set: each plugin it requires is found
through its entry point, and a session narrates and records with nothing configured."""

from __future__ import annotations

import re
from importlib.metadata import entry_points, requires
from pathlib import Path

from monologue import session
from monologue.recording import read_recording

PLUGINS = {"template", "buffer", "gate", "recorder", "claude", "sweagent", "openhands", "otel"}


def test_every_plugin_of_the_set_is_required_and_found() -> None:
    lines = requires("monologue-default") or []
    required = {re.split(r"[<>=!~ ;\[]", line, maxsplit=1)[0] for line in lines}
    assert required == {"monologue-core"} | {f"monologue-{name}" for name in PLUGINS}
    found = {ep.name for ep in entry_points(group="monologue")}
    assert found >= PLUGINS


def test_a_session_is_narrated_offline_and_recorded(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MONOLOGUE_NO_CONFIG_FILE", "1")
    monkeypatch.setenv("MONOLOGUE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("MONOLOGUE_RECORD_DIR", str(tmp_path / "sessions"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    said: list[str] = []
    with session("coder", on_narrative=lambda n: said.append(n.text)) as s:
        call = s.tool_call("Read", {"file_path": "README.md"})
        s.tool_result(call.data["tool_use_id"], "# Project")
    assert s.narrator == "template"
    assert said and all(text.strip() for text in said)
    recorded = list(read_recording(tmp_path / "sessions" / f"{s.id}.jsonl"))
    assert [e.type for e in recorded if e.type != "narrative"][:2] == ["tool_call", "tool_result"]
