"""The task runtime's events go through the real pipeline: the recorder keeps them (all
internal), the gate hears results and makes the narrator speak, and the narrator, the only
voice that reaches the user, says how each task ended."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_monologue import PluginSandbox


def test_task_lifecycle_is_recorded_gated_and_narrated(
    monologue_plugins: PluginSandbox, tmp_path: Path
) -> None:
    from monologue_runtime import AgentError, AgentResult, AgentRuntime, TaskGraphStore

    monologue_plugins.load("buffer", "template", "recorder", "gate")
    data = tmp_path / "data"
    store = TaskGraphStore(data)
    build = store.create("builder", input={"target": "wheel"}, priority=5)
    flaky = store.create("builder", input={"target": "docs"})
    heard: list[str] = []
    with monologue_plugins.session(
        "builder-1", data_dir=data, on_narrative=lambda n: heard.append(n.data["reason"])
    ) as session:
        runtime = AgentRuntime("builder-1", "builder", data_dir=data, session=session)
        task = runtime.poll_next_task()
        assert task is not None
        assert task.id == build.id  # highest priority first
        runtime.emit_update(task.id, "Compiling the extension", progress=0.5)
        runtime.complete_task(
            task.id, AgentResult(task_id=task.id, outcome="success", notes="Wheel built.")
        )
        assert session.wait_idle(10)
        second = runtime.poll_next_task()
        assert second is not None
        assert second.id == flaky.id
        runtime.fail_task(second.id, AgentError(reason="sphinx is missing", retryable=False))

    recording = data / "sessions" / f"{session.id}.jsonl"
    events = [json.loads(line) for line in recording.read_text().splitlines()[1:]]
    kinds = [e["type"] for e in events]
    assert kinds.count("agent_update") == 1
    assert kinds.count("agent_result") == 2
    runtime_events = [e for e in events if e["type"].startswith("agent_")]
    assert {e["visibility"] for e in runtime_events} == {"internal"}
    assert {e["visibility"] for e in events if e["type"] == "narrative"} == {"user"}
    # The gate made the narrator speak on the first result, before the session ended.
    assert heard[0] == "gate: agent result"
    texts = [e["data"]["text"] for e in events if e["type"] == "narrative"]
    assert any(f"finished task {build.id}: Wheel built." in t for t in texts)
    assert any(f"failed task {flaky.id}: sphinx is missing" in t for t in texts)
