"""The pipeline's redaction of a batch (``monologue.pipeline._scrub``): each event's line is
the line pydantic writes, a secret anywhere in a batch is redacted, and a tool result named
by a call in the same batch carries that name to every sink."""

from __future__ import annotations

import enum
import json
import threading
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from pydantic import BaseModel

from monologue import hookimpl
from monologue.events import Event
from monologue.pipeline._scrub import scrub, scrub_narrative
from monologue.redact import REDACTED


class Colour(enum.Enum):
    RED = "red"


class Point(BaseModel):
    x: int


def _event(data: dict, **fields) -> Event:
    # A type no plugin registers: its payload is any JSON object.
    return Event(type="note", session_id="s1", agent="coder", data=data, **fields)


PLAIN = [
    {"tool_use_id": "t1", "output": "41 passed in 1.20s", "is_error": False},
    {"text": 'naïve café ✓ \u2028 "quoted" back\\slash\nnewline\ttab\x00nul'},
    {"n": 0, "big": 2**63 - 1, "neg": -(2**63), "f": 1.5, "tiny": 1e-7, "huge": 1e16},
    {"nested": {"list": [1, "two", None, True, {"deep": [[]]}]}, "tuple": (1, 2)},
    {"when": datetime(2026, 11, 25, 19, 0, 0, tzinfo=UTC)},
    {"when": datetime(2026, 11, 25, 19, 0, 0, 123456, tzinfo=timezone(timedelta(hours=2)))},
    {"colour": Colour.RED, "empty": {}, "none": None},
]


@pytest.mark.parametrize("data", PLAIN)
def test_a_plain_event_is_written_as_pydantic_writes_it(data: dict) -> None:
    event = _event(data)
    assert event.to_json() == event.model_dump_json()
    trusted = Event.trusted("text", data, "s1", "coder", None)
    assert trusted.to_json() == trusted.model_dump_json()


@pytest.mark.parametrize(
    "data",
    [
        {"set": {3}},
        {"bytes": b"raw"},
        {"model": Point(x=1)},
        {"huge": 2**70},
        {"amount": Decimal("1.10")},
        {"gap": timedelta(seconds=3)},
    ],
)
def test_values_orjson_does_not_write_go_through_pydantic(data: dict) -> None:
    event = _event(data)
    assert event.to_json() == event.model_dump_json()


def test_an_event_with_extra_fields_keeps_them_in_its_line() -> None:
    event = _event({"output": "ok"}, origin="replay")
    line = event.to_json()
    assert line == event.model_dump_json()
    assert json.loads(line)["origin"] == "replay"


def test_an_event_json_cannot_hold_is_refused() -> None:
    with pytest.raises(ValueError, match="surrogates not allowed"):
        _event({"output": "lone \ud800 surrogate"}).to_json()


def test_a_batch_redacts_each_secret_and_keeps_the_lines_of_the_rest() -> None:
    quiet = [_event({"output": f"line {n}"}) for n in range(50)]
    leaky = _event({"output": "export GITHUB_TOKEN=abcdefHq12"})
    odd = _event({"output": "password is hunter2 \ud800"})  # JSON cannot hold it
    batch = [*quiet[:20], leaky, *quiet[20:], odd]
    scrubbed = scrub(batch)
    assert [event.id for event, _ in scrubbed] == [event.id for event in batch]
    for (event, line), original in zip(scrubbed, batch, strict=True):
        if original in (leaky, odd):
            assert event is not original and line is None
            assert REDACTED in event.data["output"]
            assert "hunter2" not in event.data["output"]
            assert "abcdefHq12" not in event.data["output"]
        else:
            assert event is original
            assert line == original.model_dump_json()
    assert leaky.data["output"] == "export GITHUB_TOKEN=abcdefHq12"  # the agent's own event


def test_a_result_named_by_a_call_in_the_same_batch_reaches_every_sink_named(
    monologue_plugins,
) -> None:
    seen: dict[str, str | None] = {}
    hold = threading.Event()

    class Sink:
        @hookimpl
        def on_event(self, event):
            if event.type == "text" and event.data["text"] == "hold":
                hold.wait(5)  # the next events queue up behind this one: one batch
            if event.type == "tool_result":
                seen[event.data["tool_use_id"]] = event.data.get("tool_name")

    monologue_plugins.register(Sink(), "sink")
    with monologue_plugins.session("coder", narrator="none") as s:
        s.text("hold")
        s.emit("tool_call", {"tool_name": "Grep", "tool_use_id": "t1", "input": {}})
        s.emit("tool_result", {"tool_use_id": "t1", "output": "3 matches"})
        hold.set()
        s.drain()
        # The call ran in an earlier batch: the name comes from the open calls.
        s.emit("tool_call", {"tool_name": "Read", "tool_use_id": "t2", "input": {}})
        s.drain()
        s.emit("tool_result", {"tool_use_id": "t2", "output": "def f(): ..."})
    assert seen == {"t1": "Grep", "t2": "Read"}


@pytest.mark.parametrize(
    "told",
    [
        {"text": "I set it; export GITHUB_TOKEN=abcdefHq12"},
        {"model": "password is abcdefHq12"},
        {"checked": {"status": "fallback", "original": "my password is abcdefHq12"}},
    ],
    ids=["text", "model", "check record"],
)
def test_a_narrative_is_redacted_wherever_its_narrator_or_checker_wrote_the_secret(
    told: dict,
) -> None:
    data = {"text": "I read it.", "narrator": "n", "model": None, "reason": "buffer"}
    data |= {"covers": ["01ABC", "01ABD"], "latency_ms": 1.5, "usage": None, **told}
    narrative = Event.trusted("narrative", data, "s", "a", visibility="user")
    clean = scrub_narrative(narrative)
    assert clean is not narrative and "abcdefHq12" not in str(clean.data)
    assert REDACTED in str(clean.data)
    assert clean.data["covers"] == ["01ABC", "01ABD"]


def test_a_narrative_without_secrets_is_kept_as_it_is() -> None:
    data = {"text": "I read client.py.", "narrator": "n", "model": "m", "reason": "buffer"}
    data |= {"covers": ["01ABC"], "latency_ms": 1.5, "usage": {"input_tokens": 3}}
    narrative = Event.trusted("narrative", data, "s", "a", visibility="user")
    assert scrub_narrative(narrative) is narrative
