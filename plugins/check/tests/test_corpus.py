"""The claims corpus: every false narrative caught, true ones let through, and the safe
text that replaces a false one true by construction."""

from __future__ import annotations

import pytest
from monologue_check.evidence import Evidence, Ledger
from monologue_check.plain import safe_text
from monologue_check.verify import check_text

from .corpus_cases import Case, cases

CASES = cases()


def verdict(case: Case, text: str | None = None) -> list[str]:
    ledger = Ledger()
    for event in case.before:
        ledger.add(event)
    calls = sum(e.type == "tool_call" for e in [*case.before, *case.events])
    evidence = Evidence.of(case.events, ledger, seen_calls=calls)
    _, violations = check_text(case.narrative if text is None else text, evidence)
    return [f"{v.kind}: {v.why}" for v in violations]


def test_the_corpus_is_large_and_balanced() -> None:
    true = sum(case.true for case in CASES)
    assert len(CASES) >= 60
    assert abs(true - (len(CASES) - true)) <= len(CASES) // 10


@pytest.mark.parametrize("case", [c for c in CASES if not c.true], ids=lambda c: c.id)
def test_a_false_narrative_is_caught(case: Case) -> None:
    assert verdict(case), f"let through ({case.cls}): {case.narrative}"


@pytest.mark.parametrize("case", [c for c in CASES if c.true], ids=lambda c: c.id)
def test_a_true_narrative_passes(case: Case) -> None:
    assert verdict(case) == [], case.narrative


@pytest.mark.parametrize("case", [c for c in CASES if not c.true], ids=lambda c: c.id)
def test_the_safe_text_for_a_false_narrative_is_true(case: Case) -> None:
    text = safe_text(case.events)
    assert verdict(case, text) == [], text


def test_rates(capsys: pytest.CaptureFixture[str]) -> None:
    """The rates the issue asks for, printed for the record (`pytest -s`)."""
    false = [c for c in CASES if not c.true]
    true = [c for c in CASES if c.true]
    let_through = [c.id for c in false if not verdict(c)]
    flagged = [c.id for c in true if verdict(c)]
    with capsys.disabled():
        print(
            f"\nclaims corpus: {len(CASES)} cases; false let through "
            f"{len(let_through)}/{len(false)} ({100 * len(let_through) / len(false):.1f}%), "
            f"true flagged {len(flagged)}/{len(true)} ({100 * len(flagged) / len(true):.1f}%)"
        )
    assert not let_through
    assert len(flagged) <= 0.02 * len(true)
