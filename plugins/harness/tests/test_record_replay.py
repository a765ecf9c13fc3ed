"""Live runs through the SDK's real query() and a fake ``claude`` subprocess, recorded, then
replayed with no subprocess: same events, same typed results, same narratives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from monologue_harness import AgentMode, MissingRecordingError, TaskHarness
from pytest_monologue import PluginSandbox
from pytest_monologue.claude import FakeClaude

from monologue import Event, Session, hookimpl

_VOLATILE = {"latency_ms", "narrator", "usage", "covers", "duration_s"}


class Trace:
    """Every event of every session, without what legitimately differs between runs."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, str]] = []

    @hookimpl
    def on_event(self, session: Session, event: Event) -> None:
        data = {k: v for k, v in event.data.items() if k not in _VOLATILE}
        self.events.append((event.agent, event.type, json.dumps(data, sort_keys=True)))

    def by_agent(self) -> dict[str, list[tuple[str, str]]]:
        """Each agent's events, in order. Sessions run on pipeline threads of their own, so
        the order of one agent's events is fixed, not how two agents' interleave (a
        harness status and the next agent's first event may land either way)."""
        agents: dict[str, list[tuple[str, str]]] = {}
        for agent, kind, data in self.events:
            agents.setdefault(agent, []).append((kind, data))
        return agents

    def narratives(self) -> list[tuple[str, str]]:
        """The narratives, agent by agent (each agent's in order)."""
        told = [(a, json.loads(d)["text"]) for a, t, d in self.events if t == "narrative"]
        return sorted(told, key=lambda narrative: narrative[0])  # stable: order kept


async def run(
    plugins: PluginSandbox, tasks: Path, mode: AgentMode, tmp: Path, **settings: Any
) -> tuple[dict[str, Any], Trace]:
    trace = plugins.register(Trace())
    harness = TaskHarness(
        tasks, mode=mode, checkpoint=tmp / f"cp-{len(list(tmp.iterdir()))}.json", **settings
    )
    try:
        report = (await harness.run()).report()
    finally:
        plugins.pm.unregister(trace)
    report.pop("duration_s")
    report.pop("checkpoint")  # one file per run here
    return report, trace


async def test_live_recorded_then_replayed(
    plugins: PluginSandbox, three_tasks: Path, fake_claude: FakeClaude, tmp_path: Path
) -> None:
    store = tmp_path / "recordings"
    live, live_trace = await run(
        plugins,
        three_tasks,
        AgentMode(kind="record", store=store),
        tmp_path,
        cli_path=fake_claude.cli,
    )
    live_runs = len(fake_claude.prompts())
    assert live_runs == 9  # parser, 4 coder runs (T002 twice), 4 reviews
    assert live["ok"] and live["retries"] == 1

    replay_mode = AgentMode(kind="replay", store=store)
    first, first_trace = await run(plugins, three_tasks, replay_mode, tmp_path)
    second, second_trace = await run(plugins, three_tasks, replay_mode, tmp_path)

    assert len(fake_claude.prompts()) == live_runs  # replay never started the CLI
    assert first == live and second == live
    assert first_trace.by_agent() == live_trace.by_agent()
    assert {agent for agent, _ in live_trace.narratives()} == {"parser", "coder", "reviewer"}
    # Two replays narrate byte for byte the same.
    assert json.dumps(first_trace.narratives()) == json.dumps(second_trace.narratives())


async def test_changed_prompt_in_replay_is_a_clear_error(
    plugins: PluginSandbox, three_tasks: Path, fake_claude: FakeClaude, tmp_path: Path
) -> None:
    store = tmp_path / "recordings"
    await run(
        plugins,
        three_tasks,
        AgentMode(kind="record", store=store),
        tmp_path,
        cli_path=fake_claude.cli,
        parse="offline",
    )
    overrides = tmp_path / "prompts"
    overrides.mkdir()
    shipped = Path(__file__).resolve().parents[3] / "prompts" / "coding.md"
    (overrides / "coding.md").write_text(shipped.read_text() + "\nKeep the diff small.\n")

    with pytest.raises(MissingRecordingError) as caught:
        await run(
            plugins,
            three_tasks,
            AgentMode(kind="replay", store=store),
            tmp_path,
            parse="offline",
            prompts_dir=overrides,
        )
    error = caught.value
    assert error.agent == "coder"
    assert not (store / "coder" / f"{error.key}.json").exists()
    assert error.nearest is not None and str(store / "coder") in error.nearest
    assert f"agent 'coder' for prompt hash {error.key}" in str(error)
    assert "nearest recording: " in str(error)


async def test_replay_without_any_recording_says_so(
    plugins: PluginSandbox, three_tasks: Path, tmp_path: Path
) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(MissingRecordingError, match="no recording of this agent"):
        await run(
            plugins, three_tasks, AgentMode(kind="replay", store=tmp_path / "empty"), tmp_path
        )
