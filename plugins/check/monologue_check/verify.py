"""Each claim held against the evidence: a :class:`~monologue.checking.Violation` when the
events do not show it."""

from __future__ import annotations

import re
from collections.abc import Callable

from monologue.checking import Violation

from .claims import Claim, extract, number
from .evidence import ERROR_LINE, Call, Evidence, norm

__all__ = ["check_text"]

_ELISION = re.compile(r"\s*(?:…|\.\.\.)\s*")
_MIN_FRAGMENT = 3


def _fragments(text: str) -> list[str]:
    """The pieces of a quote between elision marks, each long enough to mean something."""
    return [part for part in _ELISION.split(text) if len(part.strip()) >= _MIN_FRAGMENT]


def _found(text: str, evidence: Evidence, *, before: bool = False) -> bool:
    parts = _fragments(text)
    if not parts:
        return True
    if all(evidence.has(part) for part in parts):
        return True
    return before and all(evidence.said_before(part) for part in parts)


def _path_found(path: str, evidence: Evidence, before: bool) -> bool:
    # A narrator shortens paths (~/x, …/x, a project-relative x): what it kept must be there.
    trimmed = re.sub(r"^(?:~/|\.{1,3}/|…/)", "", path)
    return _found(trimmed, evidence, before=before)


# Words that tell the reader a subject comes from earlier in the session, not these events.
_EARLIER = re.compile(r"\b(?:again|once more|still|last|earlier|before)\b", re.I)


_MEANINGFUL = 12


def _excerpt(claim: Claim, evidence: Evidence) -> str | None:
    """A failure's quoted text: from an error line of a failing result (any line, where
    the output has no error-shaped one), and enough of it to say something."""
    failing = [c for c in evidence.results if c.is_error or c.outcome in ("failed", "crashed")]
    candidates = [c.error_lines for c in failing]
    lines = [line for lines in candidates for line in lines if line]
    if not lines:
        return None
    parts = [norm(part) for part in _fragments(claim.value)]
    longest = max(parts, key=len, default="")
    if any(longest in line for line in lines) and (
        len(longest) >= _MEANINGFUL or any(line == longest for line in lines)
    ):
        return None
    shown = next((line for line in lines if ERROR_LINE.search(line)), lines[0])
    return f"quotes {claim.value!r} as the error, but the output's error is {shown[:80]!r}"


def _quote(claim: Claim, evidence: Evidence) -> str | None:
    parts = _fragments(claim.value)
    if claim.again and not claim.excerpt and parts:
        subjects = [norm(call.subject) for call in evidence.acted]
        mine = all(any(norm(part) in subject for subject in subjects) for part in parts)
        if mine and not all(evidence.said_before(part) for part in parts):
            return f"says {claim.value!r} again, but the session had not done it before"
    if not _found(claim.value, evidence, before=claim.again):
        return f"quotes {claim.value!r}, which no covered event contains"
    if claim.excerpt:
        return _excerpt(claim, evidence)
    return None


def _subject(claim: Claim, evidence: Evidence) -> str | None:
    if _path_found(claim.value, evidence, before=bool(_EARLIER.search(claim.sentence))):
        return None
    return f"names {claim.value!r}, which no covered event shows"


def _ask(claim: Claim, evidence: Evidence) -> str | None:
    if claim.again:
        if any(prompt in evidence.before.prompts for prompt in evidence.prompts):
            return None
        return "says the user asked again, but this prompt was not asked before"
    if evidence.prompts:
        return None
    if evidence.injected:
        return "tells an injected message (compaction, notice or side request) as the user's ask"
    return "says the user asked, but no user prompt is covered"


def _ask_quote(claim: Claim, evidence: Evidence) -> str | None:
    """A quote inside "You asked me …": it must come from a real prompt."""
    prompts = [*evidence.prompts, *evidence.before.prompts]
    if all(any(norm(part) in prompt for prompt in prompts) for part in _fragments(claim.value)):
        return None
    if any(
        all(norm(part) in text for part in _fragments(claim.value)) for text in evidence.injected
    ):
        return f"tells injected text {claim.value!r} as the user's ask"
    return f"quotes {claim.value!r} as the user's ask, but no user prompt says it"


_TEST_VERDICT = re.compile(
    r"(\d[\d,]*) (passed|failed|errors?|error|skipped|xfailed|warnings?)", re.I
)


def _numbers(text: str) -> set[int]:
    return {int(n.replace(",", "")) for n in re.findall(r"\b\d[\d,]*\b", text)}


def _test_totals(text: str) -> set[int]:
    """Totals a test summary implies: each number, and passed + failed (+ errors)."""
    counts: dict[str, int] = {}
    for amount, what in _TEST_VERDICT.findall(text):
        key = what.lower().rstrip("s")
        counts[key] = counts.get(key, 0) + int(amount.replace(",", ""))
    ran = counts.get("passed", 0) + counts.get("failed", 0) + counts.get("error", 0)
    return _numbers(text) | {ran, ran + counts.get("skipped", 0)}


_NOTHING_FOUND = re.compile(r"^\s*no (?:files|matches|results) found", re.I)


def _line_count(output: str) -> int:
    if _NOTHING_FOUND.match(output):
        return 0
    return sum(1 for line in output.splitlines() if line.strip() and line.strip() != "--")


_MATCH_LINE = re.compile(r"^([^\s:]+):(\d+):")


def _match_counts(output: str) -> set[int]:
    """What "found N" may honestly count in a search's output: its lines (less separators),
    its ``path:line:`` matches (less context lines), or the files those are in."""
    lines = [line for line in output.splitlines() if line.strip() and line.strip() != "--"]
    matches = [m for m in map(_MATCH_LINE.match, lines) if m]
    return {len(lines), len(matches), len({m.group(1) for m in matches})}


def _count(claim: Claim, evidence: Evidence) -> str | None:
    text = claim.value.lower()
    amounts = [number(m) for m in re.findall(
        r"\b(\d[\d,]*|no|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|both)\b",
        text,
    )]  # fmt: skip
    if not amounts:
        return None
    n = amounts[0]
    calls = evidence.calls
    outputs = evidence.outputs()
    if re.match(r"^[;,] ", claim.value) and "failed" in text:
        here = sum(1 for c in evidence.results if c.is_error)
        failing = sum(1 for c in evidence.results if c.outcome in ("error", "failed", "crashed"))
        # Narrators count failures by error flag or by output; either is honest.
        bounds = (here, failing, evidence.seen_failures, failing + evidence.before.failures)
        everywhere = max(bounds)
        if n in (here, failing) or min(bounds) <= n <= everywhere:
            return None
        return f"says {n} failed, but {here} covered result(s) failed ({everywhere} in the session)"
    if " of " in text and ("failed" in text or "passed" in text or "errored" in text):
        total = amounts[1] if len(amounts) > 1 else n
        if n in _numbers(outputs) and total in _test_totals(outputs):
            return None
        return f"says {claim.value!r}, but no covered test summary shows {n} of {total}"
    if text.startswith("all ") and "passed" in text:
        results = [c for c in evidence.results if c.outcome == "passed"]
        if any(n in _test_totals(c.output or "") for c in results):
            return None
        return f"says {claim.value!r}, but no covered run shows {n} passing and none failing"
    if "tool call" in text and "more" not in text:
        here, low, high = len(calls), len(calls) + evidence.before.calls, evidence.seen_calls
        parts = (evidence.folded_calls, evidence.unfolded) if evidence.folded_calls else ()
        if n == here or n in parts or low <= n <= max(low, high):
            return None
        return f"says {claim.value!r}, but the events show {here} here and {max(low, high)} in all"
    if "cancel" in text:
        cancelled = sum(1 for c in evidence.results if c.cancelled)
        return (
            None
            if n == cancelled
            else (f"says {claim.value!r}, but {cancelled} covered result(s) were cancelled")
        )
    if text.startswith("found"):
        searches = [c for c in evidence.results if c.kind in ("search", "run", "other", "read")]
        counts = [_match_counts(c.output or "") | _numbers(c.output or "") for c in searches]
        if any(n in found for found in counts):
            return None
        # Several searches told as one: "looked for A, B and C; found 69".
        finds = [c for c in searches if c.kind == "search"]
        if len(finds) > 1 and n == sum(_line_count(c.output or "") for c in finds):
            return None
        if n == 0 and any(not (c.output or "").strip() for c in searches):
            return None
        return f"says {claim.value!r}, but no covered search result has {n}"
    if "more" in text:
        # "…, and took 2 more steps": the steps the sentence does not name, no fewer.
        for told in (evidence.acted, evidence.told_one_by_one):
            unnamed = [c for c in told if not _named(c, claim.sentence)]
            if n in (len(unnamed), len({norm(c.subject) for c in unnamed})):
                return None
        return f"says {claim.value!r}, but {len(unnamed)} covered step(s) are not named"
    first = _action_count(claim, n, evidence.acted)
    if first is None or not evidence.folded_calls:
        return first
    return _action_count(claim, n, evidence.told_one_by_one)


_VERB_KINDS = {
    "read": {"read"}, "opened": {"read"}, "edited": {"edit"}, "wrote": {"write"},
    "created": {"write"}, "ran": {"run"}, "searched": {"search", "fetch"},
    "fetched": {"fetch"}, "checked": {"job", "run", "read", "search"}, "started": {"run", "agent"},
}  # fmt: skip


def _named(call: Call, sentence: str) -> bool:
    subject = norm(call.subject)
    said = norm(sentence)
    if call.kind == "run":
        return bool(subject) and subject[:20] in said
    base = subject.rsplit("/", 1)[-1]
    return bool(subject) and (subject[:20] in said or (len(base) > 3 and base in said))


def _action_count(claim: Claim, n: int, calls: list[Call]) -> str | None:
    verb = claim.value.split()[0].lower()
    kinds = _VERB_KINDS.get(verb)
    if kinds is None:
        return None
    mine = [c for c in calls if c.kind in kinds]
    if "job" in claim.value.lower():
        mine = [c for c in mine if c.kind == "job"] or mine
        ids = {
            str(
                c.input.get("bash_id")
                or c.input.get("task_id")
                or c.input.get("shell_id")
                or c.subject
            )
            for c in mine
        }
        return (
            None
            if n == len(ids)
            else (f"says {claim.value!r}, but the events show {len(ids)} distinct job(s)")
        )
    distinct = {norm(c.subject) for c in mine}
    if n in (len(mine), len(distinct)):
        return None
    # "The explore sub-agent ran 2 commands": a count may be one agent's.
    per_agent = {
        agent: sum(1 for c in mine if c.agent == agent) for agent in {c.agent for c in mine}
    }
    if n in per_agent.values():
        return None
    return (
        f"says {claim.value!r}, but {len(mine)} such call(s) "
        f"on {len(distinct)} subject(s) are covered"
    )


def _outcome(claim: Claim, evidence: Evidence) -> str | None:
    results = evidence.results
    outcomes = {c.outcome for c in results}
    match claim.value:
        case "passed":
            if "passed" in outcomes:
                return None
            # Of tests, a pass needs the runner's own verdict; of anything else, a clean run.
            if not _TESTS.search(claim.sentence) and "ok" in outcomes:
                return None
            if "crashed" in outcomes:
                return "says it passed, but the output shows a crash"
            return "says it passed, but no covered result shows a pass"
        case "crashed":
            return (
                None
                if outcomes & {"crashed", "error", "failed"}
                else ("says it crashed, but no covered result shows a crash")
            )
        case "failed":
            if any(c.is_error or c.outcome in ("failed", "crashed") for c in results):
                return None
            if evidence.ending == "failed" or claim.again:
                return None
            return "says something failed, but every covered result succeeded"
        case "not_run":
            if any(c.not_run for c in results):
                return None
            if any(c.is_error for c in results):
                return "says a command couldn't run, but it ran and reported a failure"
            return "says a command couldn't run, but every covered command ran"
        case "fixed":
            failed_before = evidence.before.failures or any(
                c.outcome in ("error", "failed", "crashed") for c in results
            )
            if failed_before and any(c.outcome in ("passed", "ok") for c in results):
                return None
            return "says something was fixed, but no earlier failure was followed by a success"
        case "done":
            if evidence.completed and evidence.ending == "completed":
                return None
            if evidence.completed:
                return f"says the work is done, but the run ended {evidence.ending}"
            return "says the work is done, but the run has not ended"
        case "interrupted":
            if evidence.ending == "interrupted" or evidence.has("interrupt"):
                return None
            return "says the run was interrupted, but no event shows an interruption"
    return None


_TESTS = re.compile(r"\btests?\b|\btest suite\b|\bspecs?\b", re.I)


_ACT_KINDS = {
    "read": {"read", "search"},
    "edited": {"edit", "write"}, "updated": {"edit", "write", "other"},
    "modified": {"edit", "write"}, "changed": {"edit", "write", "other"},
    "refactored": {"edit", "write"}, "rewrote": {"edit", "write"}, "wrote": {"write", "edit"},
    "created": {"write", "run", "other"}, "deleted": {"run", "edit", "other"},
    "removed": {"run", "edit", "other"}, "ran": {"run", "job"}, "tested": {"run"},
    "searched": {"search", "fetch"}, "fetched": {"fetch"},
    "committed": {"run"}, "pushed": {"run"}, "installed": {"run"},
}  # fmt: skip
_ACT_COMMANDS = {
    "committed": re.compile(r"\bgit\b.*\bcommit\b"),
    "pushed": re.compile(r"\bgit\b.*\bpush\b"),
    "installed": re.compile(r"\binstall\b|\badd\b"),
    "tested": re.compile(r"test|spec|check"),
}


def _action(claim: Claim, evidence: Evidence) -> str | None:
    kinds = _ACT_KINDS.get(claim.value, set())
    calls = [c for c in evidence.acted if c.kind in kinds]
    pattern = _ACT_COMMANDS.get(claim.value)
    if pattern is not None:
        calls = [c for c in calls if pattern.search(c.subject.lower())]
    if calls or ((claim.again or _EARLIER.search(claim.sentence)) and evidence.before.calls):
        return None
    # A live batch's digest counts its calls by tool: an act of a kind it holds is shown.
    if pattern is None and kinds & evidence.folded_kinds:
        return None
    return f"says {claim.text!r}, but no covered tool call did that"


def _voice(claim: Claim, evidence: Evidence) -> str | None:
    match claim.value:
        case "agent":
            return f"speaks in the agent's voice ({claim.text!r}), not the first person singular"
        case "markup":
            return f"shows raw markup or data ({claim.text!r})"
        case "future":
            if evidence.calls and all(c.finished for c in evidence.calls):
                return f"says {claim.text!r} about work the events show finished"
        case "progressive":
            acted = evidence.acted
            if acted and all(c.finished for c in acted):
                return f"says {claim.text!r} of work the events show finished"
        case "filler":
            return f"quotes filler as a report ({claim.text!r}), not what was found"
        case "internal":
            return f"shows an internal id or path ({claim.text!r})"
        case "twins":
            return f"elides two commands to the same {claim.text!r}"
    return None


_CHECKS: dict[str, Callable[[Claim, Evidence], str | None]] = {
    "quote": _quote,
    "subject": _subject,
    "count": _count,
    "outcome": _outcome,
    "voice": _voice,
    "action": _action,
}


def _violation(claim: Claim, evidence: Evidence) -> str | None:
    if claim.kind == "ask":
        return _ask_quote(claim, evidence) if claim.value else _ask(claim, evidence)
    return _CHECKS[claim.kind](claim, evidence)


def check_text(text: str, evidence: Evidence) -> tuple[int, list[Violation]]:
    """How many claims ``text`` makes, and those the evidence contradicts."""
    claims = extract(text)
    violations = []
    for claim in claims:
        why = _violation(claim, evidence)
        if why is not None:
            violations.append(Violation(kind=claim.kind, claim=claim.text, why=why))
    return len(claims), violations
