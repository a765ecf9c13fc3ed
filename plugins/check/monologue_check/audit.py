"""Auditing a recording: every recorded narrative checked against the events it covers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import BaseModel, Field

from monologue.checking import Violation
from monologue.events import Event

from .claims import extract
from .evidence import Evidence, Ledger
from .verify import check_text

__all__ = ["Audit", "Finding", "audit_events", "audit_path", "findings_text"]


class Finding(BaseModel):
    """A narrative with at least one false claim, and the events it covers."""

    narrative_id: str
    text: str
    narrator: str | None = None
    violations: list[Violation]
    covered: list[str] = Field(description="the covered events, one line each")


class Audit(BaseModel):
    """A recording's totals, per claim kind, and every finding."""

    source: str
    narratives: int = 0
    failed: int = 0
    claims: dict[str, int] = Field(default_factory=dict)
    violations: dict[str, int] = Field(default_factory=dict)
    findings: list[Finding] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.failed == 0


def _line(event: Event) -> str:
    data = event.data
    if event.type == "tool_call":
        tool_input = data.get("input") or {}
        subject = next(
            (str(tool_input[k]) for k in ("command", "file_path", "path", "pattern", "url")
             if isinstance(tool_input, dict) and k in tool_input),
            "",
        )  # fmt: skip
        return f"tool_call {data.get('tool_name')} {subject}"[:160]
    if event.type == "tool_result":
        output = str(data.get("output", "")).strip().splitlines()
        first = output[0] if output else ""
        return f"tool_result{' (error)' if data.get('is_error') else ''} {first}"[:160]
    text = str(data.get("text") or data.get("result") or "")
    return f"{event.type} {' '.join(text.split())}"[:160]


def _covered(narrative: Event, events: list[Event], where: dict[str, int]) -> list[Event]:
    span = narrative.data.get("covers_range")
    if isinstance(span, list) and len(span) == 2 and span[0] in where and span[1] in where:
        return events[where[span[0]] : where[span[1]] + 1]
    return [events[where[i]] for i in narrative.data.get("covers", []) if i in where]


def audit_events(events: Iterable[Event], source: str) -> Audit:
    """Check every narrative in ``events`` (a recording's, in order) against the events
    it covers and the session before them."""
    audit = Audit(source=source)
    seen: list[Event] = []
    where: dict[str, int] = {}
    ledger = Ledger()
    calls = failures = 0
    claims: Counter[str] = Counter()
    violations: Counter[str] = Counter()
    for event in events:
        if event.type != "narrative":
            where[event.id] = len(seen)
            seen.append(event)
            calls += event.type == "tool_call"
            failures += event.type == "tool_result" and bool(event.data.get("is_error"))
            continue
        covered = _covered(event, seen, where)
        evidence = Evidence.of(
            covered,
            ledger.before_batch(covered),
            seen_calls=calls,
            seen_failures=failures,
            folded=int(event.data.get("folded") or 0),
        )
        text = str(event.data.get("text", ""))
        claims.update(claim.kind for claim in extract(text))
        _, found = check_text(text, evidence)
        audit.narratives += 1
        if found:
            audit.failed += 1
            violations.update(v.kind for v in found)
            audit.findings.append(
                Finding(
                    narrative_id=event.id,
                    text=text,
                    narrator=event.data.get("narrator"),
                    violations=found,
                    covered=[_line(e) for e in covered],
                )
            )
    audit.claims = dict(claims)
    audit.violations = dict(violations)
    return audit


def audit_path(path: Path) -> Audit:
    """Audit the recording at ``path`` (any format a reader plugin knows)."""
    from monologue.recording import open_session

    source, _ = open_session(path, strict=False, name=str(path))
    return audit_events(source, str(path))


def findings_text(audit: Audit) -> Iterator[str]:
    """The audit as a person reads it: each finding, then the totals."""
    for finding in audit.findings:
        yield f"✗ {finding.text}"
        for violation in finding.violations:
            yield f"    {violation.kind}: {violation.why}"
        for line in finding.covered[:8]:
            yield f"      · {line}"
        if len(finding.covered) > 8:
            yield f"      · … {len(finding.covered) - 8} more event(s)"
    kinds = sorted(set(audit.claims) | set(audit.violations))
    per_kind = ", ".join(
        f"{k} {audit.violations.get(k, 0)}/{audit.claims.get(k, 0)}" for k in kinds
    )
    yield (
        f"{audit.source}: {audit.narratives} narrative(s), {audit.failed} with false claims"
        + (f"; false/claims by kind: {per_kind}" if per_kind else "")
    )
