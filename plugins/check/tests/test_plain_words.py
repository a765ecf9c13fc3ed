"""The safe text names tools in plain words: no SDK tool name reaches the user (issue 25)."""

from __future__ import annotations

from monologue_check.evidence import Evidence
from monologue_check.plain import safe_text
from monologue_check.verify import check_text

from monologue.events import Event


def test_a_structured_answer_is_told_in_plain_words() -> None:
    answer = {"summary": "Wrote greet.py", "stopReason": "finished"}
    events = [
        Event(
            id="e1",
            type="tool_call",
            agent="coder",
            data={"tool_name": "StructuredOutput", "tool_use_id": "t1", "input": answer},
        ),
        Event(
            id="e2",
            type="tool_result",
            agent="coder",
            data={"tool_use_id": "t1", "output": "Structured output provided successfully"},
        ),
    ]
    text = safe_text(events)
    assert text.startswith("I gave my structured answer."), text
    assert "StructuredOutput" not in text
    assert check_text(text, Evidence.of(events))[1] == []
