"""The claims corpus (corpus/claims.jsonl) as events, for the checker's tests."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from monologue.events import Event

CORPUS = Path(__file__).parent / "corpus" / "claims.jsonl"


def event(step: list[Any], n: int, agent: str = "coder") -> Event:
    kind = step[0]
    if kind == "call":
        _, tool, use_id, tool_input = step
        data = {"tool_name": tool, "tool_use_id": use_id, "input": tool_input}
        return Event(id=f"e{n:04d}", type="tool_call", agent=agent, data=data)
    if kind == "result":
        _, use_id, output, is_error = step
        data = {"tool_use_id": use_id, "output": output, "is_error": is_error}
        return Event(id=f"e{n:04d}", type="tool_result", agent=agent, data=data)
    if kind == "user":
        _, text, origin = step
        data = {"text": text, **({"origin": origin} if origin else {})}
        return Event(id=f"e{n:04d}", type="user_message", agent=agent, data=data)
    if kind == "done":
        ending = step[1]
        data = {"result": "", "is_error": ending == "failed", "ending": ending}
        return Event(id=f"e{n:04d}", type="completion", agent=agent, data=data)
    raise ValueError(f"unknown step {kind!r}")


@dataclass
class Case:
    id: str
    true: bool
    cls: str
    narrative: str
    before: list[Event]
    events: list[Event]


def cases() -> list[Case]:
    loaded = []
    for line in CORPUS.read_text().splitlines():
        raw = json.loads(line)
        agent = raw["agent"]
        before = [event(step, n, agent) for n, step in enumerate(raw["before"])]
        events = [event(step, 100 + n, agent) for n, step in enumerate(raw["events"])]
        loaded.append(Case(raw["id"], raw["true"], raw["class"], raw["narrative"], before, events))
    return loaded
