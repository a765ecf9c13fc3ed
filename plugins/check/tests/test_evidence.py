"""The evidence's verdicts on long outputs, as the fast scans read them: a verdict found
wherever the window shows it (the head or the tail), word boundaries and case kept, and each
result scanned once per session, in a bounded ledger."""

from __future__ import annotations

import pytest
from monologue_check.evidence import Call, Evidence, Ledger, outcome_of
from monologue_check.verify import check_text

from monologue.events import Event

# A long output: the lines a test run prints before its summary, far past any window.
_NOISE = "".join(f"tests/test_module_{n}.py::test_case_{n} collected\n" for n in range(4000))


@pytest.mark.parametrize(
    ("output", "outcome"),
    [
        (_NOISE + "=== 1 failed, 12 passed in 0.5s ===", "failed"),
        (_NOISE + "=== 12 passed in 0.5s ===", "passed"),
        ("Traceback (most recent call last):\n  File 'x.py'\n" + _NOISE, "crashed"),
        (_NOISE + "FAILED tests/test_x.py::test_y", "failed"),
        (_NOISE, "ok"),
    ],
    ids=["failed-in-tail", "passed-in-tail", "crash-in-head", "FAILED-in-tail", "no-verdict"],
)
def test_a_verdict_at_either_end_of_a_long_output_is_read(output: str, outcome: str) -> None:
    assert len(output) > 100_000
    assert outcome_of(output, False) == outcome


@pytest.mark.parametrize(
    ("output", "outcome"),
    [
        ("a1 passed", "ok"),
        ("1 passed", "passed"),
        ("x3 failed", "ok"),
        ("3 failed", "failed"),
        ("03 failed", "ok"),
        ("unsuccessful", "ok"),
        ("successfully built", "passed"),
        ("xFAILED", "ok"),
        ("FAILED", "failed"),
        ("failures=2", "failed"),
        ("failures=0", "ok"),
        ("look ok", "ok"),
        ("ok", "passed"),
        ("it failed", "ok"),
        ("build\nfailed", "failed"),
        ("done\nok", "passed"),
        ("Ran 3 tests\n\nOK (skipped=1)", "passed"),
        ("TRACEBACK (MOST RECENT CALL LAST)", "crashed"),
        ("  Error[E0432]: unresolved import", "crashed"),
        ("the error: was here", "ok"),
    ],
)
def test_word_boundaries_and_case_are_kept(output: str, outcome: str) -> None:
    assert outcome_of(output, False) == outcome


def test_a_case_blind_marker_is_read_in_any_case() -> None:
    call = Call("Bash", "run", {}, output="bash: Permission Denied", is_error=True)
    assert call.not_run
    assert Call("Bash", "run", {}, output="Sibling tool call ERRORED", is_error=True).cancelled


def _run(n: int, output: str) -> list[Event]:
    call = {"tool_name": "Bash", "tool_use_id": f"t{n}", "input": {"command": "pytest"}}
    result = {"tool_use_id": f"t{n}", "output": output, "is_error": False}
    return [
        Event(id=f"c{n}", type="tool_call", agent="coder", data=call),
        Event(id=f"r{n}", type="tool_result", agent="coder", data=result),
    ]


def test_a_count_whose_evidence_is_only_in_the_tail_is_checked() -> None:
    events = _run(1, _NOISE + "=== 1 failed, 12 passed in 0.5s ===")
    evidence = Evidence.of(events)
    assert check_text("I ran `pytest`; 1 of 13 tests failed.", evidence)[1] == []
    assert check_text("I ran `pytest`, and the tests passed.", evidence)[1]
    assert check_text("I ran `pytest`; 2 of 13 tests failed.", evidence)[1]


def test_each_result_is_scanned_once_and_the_ledger_stays_bounded() -> None:
    ledger = Ledger(limit=2)
    batches = [_run(n, f"{n} failed") for n in range(1, 4)]
    for batch in batches:
        evidence = Evidence.of(batch, ledger.before_batch(batch))
        assert evidence.results[0].outcome == "failed"
        assert ledger.outcomes[batch[1].id] == "failed"
    # The last batch joins when the next one comes; the oldest outcomes are forgotten.
    ledger.before_batch([])
    assert ledger.failures == 3
    assert list(ledger.outcomes) == ["r2", "r3"]
    assert len(ledger.recent_calls) == 2
