"""``replay --json`` and ``log`` show the narration's requests, tokens and cost; ``--record``
says where the replay went; narration is shown at the recorded time of what it is about."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pytest_monologue import MockNarrator
from viewing_support import Cli

from monologue import Narration
from monologue.events import Event, RecordingHeader, Usage
from monologue.replay._cost import NarrationCost, dollars_of

THEN = datetime(2020, 1, 1, 9, 0, tzinfo=UTC)


def recorded_session(path: Path, model: str | None) -> list[Event]:
    """A recording made in 2020 whose two narratives were delivered "now" (as a replay
    recorded with --record writes them) with usage."""
    header = RecordingHeader(session_id="S1", agent="coder", started_at=THEN)
    events = []
    for n in range(4):
        tool = {"tool_name": "Read", "tool_use_id": f"t{n}", "input": {"file_path": f"{n}.py"}}
        events.append(
            Event(
                type="tool_call",
                session_id="S1",
                agent="coder",
                data=tool,
                ts=THEN + timedelta(minutes=n),
            )
        )
    usage = {"input_tokens": 1_000_000, "output_tokens": 100_000, "cache_read_input_tokens": 0}
    for covered in (events[:2], events[2:]):
        data = {
            "text": f"I read {len(covered)} files.",
            "narrator": "anthropic",
            "model": model,
            "reason": "buffer",
            "covers": [e.id for e in covered],
            "usage": usage,
        }
        events.append(Event(type="narrative", session_id="S1", agent="coder", data=data))
    events.sort(key=lambda e: e.ts)
    ordered = [*events[:2], events[4], *events[2:4], events[5]]
    path.write_text("\n".join([header.to_json(), *(e.to_json() for e in ordered)]) + "\n")
    return ordered


def test_prices_come_from_the_maintained_price_data() -> None:
    million = {"input_tokens": 1_000_000, "output_tokens": 1_000_000}
    assert dollars_of("claude-haiku-4-5-20251001", million) == pytest.approx(1.0 + 5.0)
    assert dollars_of("claude-opus-4-1", million) == pytest.approx(15.0 + 75.0)
    # Cache reads are a tenth of the input price; Anthropic counts them apart from input.
    reads = {"input_tokens": 0, "cache_read_input_tokens": 1_000_000}
    assert dollars_of("claude-haiku-4-5", reads) == pytest.approx(0.1)
    assert dollars_of("my-local-model", million) is None and dollars_of(None, million) is None


def test_replay_json_shows_requests_tokens_and_cost(run_cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    recorded_session(path, "claude-haiku-4-5-20251001")
    result = run_cli("replay", "--recorded", "--json", str(path))
    assert result.exit_code == 0, result.output
    narration = json.loads(result.stdout.splitlines()[-1])["narration"]
    assert narration["requests"] == 2
    assert narration["input_tokens"] == 2_000_000 and narration["output_tokens"] == 200_000
    assert narration["cost_usd"] == pytest.approx(2 * (1.0 + 0.5))  # $1/M in, $5/M out
    assert narration["unpriced_models"] == []


def test_an_unknown_model_is_counted_in_tokens_only_and_named(run_cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    recorded_session(path, "my-local-model")
    result = run_cli("log", str(path))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == (
        "2 narration requests, 2,000,000 tokens in, 200,000 out "
        "(no price for my-local-model: tokens only)"
    )
    lines = [json.loads(line) for line in run_cli("log", "--json", str(path)).stdout.splitlines()]
    assert lines[-1]["kind"] == "narration"
    assert lines[-1]["narration"]["cost_usd"] is None


def test_a_regenerated_narration_is_counted_too(
    run_cli: Cli, tmp_path: Path, mock_narrator: MockNarrator
) -> None:
    path = tmp_path / "s.jsonl"
    recorded_session(path, None)
    usage = Usage(input_tokens=2000, output_tokens=100)
    mock_narrator.default = Narration(text="Reading.", model="claude-3-5-haiku", usage=usage)
    result = run_cli("replay", "--json", "-c", "max_buffer_size=2", str(path))
    narration = json.loads(result.stdout.splitlines()[-1])["narration"]
    assert narration["requests"] >= 1
    assert narration["input_tokens"] == 2000 * narration["requests"]
    assert narration["cost_usd"] == pytest.approx(narration["requests"] * 0.002)


def test_narration_is_shown_at_the_recorded_time_of_what_it_covers(
    run_cli: Cli, tmp_path: Path
) -> None:
    path = tmp_path / "s.jsonl"
    events = recorded_session(path, None)
    lines = [json.loads(line) for line in run_cli("log", "--json", str(path)).stdout.splitlines()]
    narratives = [line for line in lines if line["kind"] == "narrative"]
    covered_ts = [events[1].ts, events[4].ts]
    assert [datetime.fromisoformat(n["ts"]) for n in narratives] == covered_ts

    replayed = run_cli("replay", "--recorded", "--json", str(path)).stdout.splitlines()
    shown = [json.loads(line) for line in replayed if '"narrative"' in line]
    assert [datetime.fromisoformat(n["ts"]) for n in shown] == covered_ts


def test_a_narrative_of_a_large_digest_is_dated_by_the_end_of_its_range(
    run_cli: Cli, tmp_path: Path
) -> None:
    header = RecordingHeader(session_id="S1", agent="coder", started_at=THEN)
    calls = [
        Event(
            type="tool_call",
            session_id="S1",
            agent="coder",
            data={"tool_name": "Read", "tool_use_id": f"t{n}", "input": {"file_path": "a.py"}},
            ts=THEN + timedelta(minutes=n),
        )
        for n in range(3)
    ]
    # Folded past the id limit: no ids listed, the range stands for them.
    data = {"text": "I read a.py 3 times.", "narrator": "template", "reason": "final", "covers": []}
    narrative = Event(
        type="narrative",
        session_id="S1",
        agent="coder",
        data={**data, "covers_range": [calls[0].id, calls[1].id]},
    )
    lines = [header.to_json(), *(e.to_json() for e in [*calls, narrative])]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    logged = [json.loads(line) for line in run_cli("log", "--json", str(path)).stdout.splitlines()]
    (shown,) = [line for line in logged if line["kind"] == "narrative"]
    assert datetime.fromisoformat(shown["ts"]) == calls[1].ts


def test_record_says_which_session_and_where(
    run_cli: Cli, tmp_path: Path, record_dir: Path
) -> None:
    path = tmp_path / "s.jsonl"
    recorded_session(path, None)
    result = run_cli("replay", "--record", "--narrator", "none", str(path))
    assert result.exit_code == 0, result.output
    [said] = [line for line in result.stderr.splitlines() if "recorded as session" in line]
    session_id = said.split("recorded as session ")[1].split(" ")[0]
    recording = record_dir / f"{session_id}.jsonl"
    assert said == f"monologue: recorded as session {session_id} in {recording}"
    assert recording.exists()


def test_no_usage_costs_nothing() -> None:
    cost = NarrationCost()
    cost.add(Event(type="narrative", data={"text": "x", "narrator": "template", "reason": "r"}))
    assert cost.requests == 0 and cost.describe() == ""
