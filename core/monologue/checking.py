"""Checking a narration's claims before anyone hears it.

A plugin that implements ``check_narrative`` (monologue-check does) reads a narration's
claims and holds them against the events it covers. What happens next is decided here, for
every narrator alike: a narrator that takes ``feedback`` is asked once more with the
violations; otherwise, or when the retry is false too, the checker's safe text (built only
from verified facts) is delivered instead. The verdict travels with the narrative as
``data["checked"]``. A checker that fails or runs out of time never holds narration up: the
narrative goes out unchecked, and says so.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .events import Usage

if TYPE_CHECKING:
    from .events._narration import Narration

__all__ = [
    "CheckRecord",
    "CheckStatus",
    "CheckTally",
    "ClaimCheck",
    "Violation",
    "checked_narration",
    "log_first_false",
]

log = logging.getLogger("monologue.checking")

CheckStatus = Literal["passed", "retried", "fallback", "unchecked"]


class Violation(BaseModel):
    """One claim the events do not show."""

    model_config = ConfigDict(extra="forbid")

    kind: str = Field(description="quote, subject, count, outcome, ask or voice")
    claim: str = Field(description="the words as the narrative has them")
    why: str = Field(description="what the events show instead")


class ClaimCheck(BaseModel):
    """A checker's verdict on one text: how many claims it makes, which are false, and a
    ``safe_text`` built only from what the events show, to deliver instead of a false one."""

    model_config = ConfigDict(extra="forbid")

    claims: int = 0
    violations: list[Violation] = Field(default_factory=list)
    safe_text: str | None = None

    @property
    def ok(self) -> bool:
        return not self.violations


class CheckRecord(BaseModel):
    """What ``data["checked"]`` holds on a narrative event."""

    model_config = ConfigDict(extra="forbid")

    status: CheckStatus
    claims: int = 0
    violations: list[Violation] = Field(default_factory=list)
    original: str | None = None
    """The narrator's false text, kept for audits when it was retried or replaced."""
    note: str | None = None


class FalseNarrative(BaseModel):
    """A narration the check found false: what the narrator said, and why it was false."""

    original: str
    delivered: str
    status: CheckStatus
    violations: list[Violation]


class CheckTally(BaseModel):
    """What the claim check did to a run's narratives (``monologue replay --check``)."""

    checked: int = 0
    passed: int = 0
    retried: int = 0
    fallback: int = 0
    unchecked: int = 0
    """Narratives with no verdict: no checker answered, or it failed."""
    violations: dict[str, int] = Field(default_factory=dict)
    """False claims by kind (quote, subject, count, outcome, ask, voice, action)."""
    false: list[FalseNarrative] = Field(default_factory=list)
    """The first :data:`FALSE_KEPT` false narrations, to show."""

    @property
    def false_count(self) -> int:
        return self.retried + self.fallback

    def add(self, narrative_data: dict[str, Any]) -> None:
        """Count one delivered narrative by its ``checked`` record."""
        raw = narrative_data.get("checked")
        record = CheckRecord.model_validate(raw) if isinstance(raw, dict) else None
        self.checked += 1
        if record is None or record.status == "unchecked":
            self.unchecked += 1
            return
        if record.status == "passed":
            self.passed += 1
            return
        if record.status == "retried":
            self.retried += 1
        else:
            self.fallback += 1
        for violation in record.violations:
            self.violations[violation.kind] = self.violations.get(violation.kind, 0) + 1
        if len(self.false) < FALSE_KEPT:
            self.false.append(
                FalseNarrative(
                    original=record.original or "",
                    delivered=str(narrative_data.get("text", "")),
                    status=record.status,
                    violations=record.violations,
                )
            )

    def describe(self) -> list[str]:
        """The tally as lines a person reads: each false narration, then the totals."""
        lines: list[str] = []
        for item in self.false:
            what = "retried" if item.status == "retried" else "replaced"
            lines.append(f"✗ {item.original}")
            lines += [f"    {v.kind}: {v.why}" for v in item.violations]
            lines.append(f"    {what} by: {item.delivered}")
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self.violations.items()))
        lines.append(
            f"checked {self.checked} narrative(s): {self.passed} true, {self.false_count} false"
            f" ({self.retried} retried, {self.fallback} replaced), {self.unchecked} unchecked"
            + (f"; false claims by kind: {kinds}" if kinds else "")
        )
        return lines


FALSE_KEPT = 20

Checker = Callable[[str], ClaimCheck | None]
Retry = Callable[[list[str]], "Narration | None"]


def checked_narration(
    narration: Narration,
    check: Checker,
    retry: Retry | None,
    *,
    deadline: float,
) -> Narration:
    """``narration``, or what replaces it, with its :class:`CheckRecord` attached.

    ``check`` returns ``None`` when no checker is installed (the narration is returned
    untouched); ``retry`` asks the narrator again with feedback, when it can; ``deadline``
    (``time.monotonic()``) is when the narrator's own deadline leaves no time for a retry.
    """
    try:
        verdict = check(narration.text)
    except Exception as exc:
        log.warning("the claim checker failed; the narrative goes out unchecked: %s", exc)
        return _marked(narration, CheckRecord(status="unchecked", note=f"checker failed: {exc}"))
    if verdict is None:
        return narration
    if verdict.ok:
        return _marked(narration, CheckRecord(status="passed", claims=verdict.claims))
    first = verdict
    if retry is not None and time.monotonic() < deadline:
        feedback = [f"{v.claim!r} {v.why}" for v in verdict.violations]
        try:
            again = retry(feedback)
        except Exception as exc:
            log.warning("the narrator's retry after a failed claim check raised: %s", exc)
            again = None
        if again is not None and not again.is_wait:
            second = check(again.text)
            if second is None or second.ok:
                record = CheckRecord(
                    status="retried",
                    claims=second.claims if second else 0,
                    violations=first.violations,
                    original=narration.text,
                )
                return _marked(_with_usage(again, narration), record)
            verdict = second
    record = CheckRecord(
        status="fallback",
        claims=first.claims,
        violations=first.violations,
        original=narration.text,
    )
    safe = verdict.safe_text or first.safe_text
    if not safe:
        safe = "I kept working."
    return _marked(narration.model_copy(update={"text": safe}), record)


def log_first_false(session_id: str, checked: dict[str, Any]) -> None:
    """The one WARNING a session logs about false claims; later ones are only counted."""
    log.warning(
        "session %s: a narrative's claims were false (%s); it was %s (further ones are "
        "counted in session.stats, not logged)",
        session_id,
        "; ".join(v["why"] for v in checked.get("violations", [])[:3]),
        "retried" if checked.get("status") == "retried" else "replaced by a safe one",
    )


def _with_usage(again: Narration, first: Narration) -> Narration:
    """The retry's answer carrying both calls' token usage."""
    if first.usage is None:
        return again
    if again.usage is None:
        return again.model_copy(update={"usage": first.usage})
    total = Usage(
        input_tokens=first.usage.input_tokens + again.usage.input_tokens,
        output_tokens=first.usage.output_tokens + again.usage.output_tokens,
    )
    return again.model_copy(update={"usage": total})


def _marked(narration: Narration, record: CheckRecord) -> Narration:
    return narration.model_copy(update={"checked": record.model_dump(exclude_defaults=True)})
