"""Reading tool outputs: test-run summaries and match counts (what failed: :mod:`.errors`)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from monologue.redact import redact_text

from .wording import clip

# pytest: "2 failed, 38 passed, 1 skipped in 1.2s"; jest: "Tests: 2 failed, 39 passed, 41 total";
# mocha: "39 passing", "2 failing"; cargo: "test result: FAILED. 39 passed; 2 failed; 0 ignored".
_COUNT = re.compile(
    r"\b(\d+) (passed|passing|failed|failing|errors?|skipped|pending|ignored|xfailed|xpassed"
    r"|deselected|todo)\b"
)
_COUNT_WORDS = (
    "passed", "passing", "failed", "failing", "error", "skipped", "pending", "ignored",
    "xfailed", "xpassed", "deselected", "todo",
)  # fmt: skip
"""Words one of which an output has when ``_COUNT`` can match."""
_MOCHA = re.compile(r"^\s*\d+ passing\b", re.MULTILINE)
_UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in ", re.MULTILINE)
_UNITTEST_FAILED = re.compile(r"^FAILED \(([^)]*)\)", re.MULTILINE)
_UNITTEST_PART = re.compile(r"(failures|errors|skipped|expected failures)=(\d+)")
_EXUNIT = re.compile(r"\b(\d+) tests?, (\d+) failures?\b")
_GO_RESULT = re.compile(r"^--- (PASS|FAIL|SKIP): ", re.MULTILINE)
_FAILED_TEST = re.compile(r"^(?:FAILED|ERROR) (\S+::\S+)", re.MULTILINE)
_FAILED_JEST = re.compile(r"^\s*● (.+?)(?: \u203a .+)?$", re.MULTILINE)
_FOUND = re.compile(r"\bFound (\d+) (files?|matches|match|lines?|occurrences?)\b", re.IGNORECASE)
_NOTHING = re.compile(r"^\s*No (?:files|matches|results)(?: were)? found", re.IGNORECASE)

# Not a hit: pagination notices, "--" between context groups, and context lines themselves
# ("src/a.py-12-text" or "12-text", where a match has ":").
_NOT_A_HIT = re.compile(r"^(?:\(|\[Showing |--$|(?:\S*?-)?\d+-)")

_FAILING = frozenset({"failed", "failing", "error", "errors"})
_NOT_RUN = frozenset({"deselected"})


@dataclass(frozen=True)
class SuiteResult:
    """How a test run went: ``failed`` of ``total`` tests failed (errors count as failures)."""

    total: int
    failed: int
    first_failure: str | None = None

    def phrase(self) -> str:
        """``"2 of 41 tests failed"``, ``"all 41 tests passed"``."""
        if self.failed:
            return f"{self.failed} of {self.total} {'test' if self.total == 1 else 'tests'} failed"
        if self.total == 1:
            return "its only test passed"
        return f"all {self.total} tests passed" if self.total else "no tests ran"


# One output is read several times per narration (its outcome, full and short, details).
@functools.lru_cache(maxsize=64)
def suite_result(output: str) -> SuiteResult | None:
    """The summary of a pytest, unittest, jest, mocha, cargo, ExUnit or go test run, if ``output``
    ends with one."""
    first_failure = _first_failure(output)
    # Each regex runs only on an output with its literal words: a regex scan of a long
    # output costs far more than a substring search.
    ran = _UNITTEST_RAN.findall(output) if "Ran " in output else []
    if ran:
        failed = 0
        for parts in _UNITTEST_FAILED.findall(output):
            for name, value in _UNITTEST_PART.findall(parts):
                if name in ("failures", "errors"):
                    failed += int(value)
        return SuiteResult(int(ran[-1]), failed, first_failure)
    exunit = _EXUNIT.findall(output) if " failure" in output else []
    if exunit:  # ExUnit (mix test): "5 tests, 1 failure"
        total, failed = exunit[-1]
        return SuiteResult(int(total), int(failed), first_failure)
    counts = _mocha_counts(output) or _last_counts(output)
    if counts:
        failed = sum(n for word, n in counts.items() if word in _FAILING)
        total = counts.pop("__total__", None)
        if total is None:
            total = sum(n for word, n in counts.items() if word not in _NOT_RUN)
        return SuiteResult(total, failed, first_failure)
    results = _GO_RESULT.findall(output) if "--- " in output else []
    if results:
        return SuiteResult(len(results), results.count("FAIL"), first_failure)
    return None


def _mocha_counts(output: str) -> dict[str, int]:
    # mocha prints one count per line: "39 passing (2s)", "2 failing", "1 pending".
    if " passing" not in output or not _MOCHA.search(output):
        return {}
    return {
        word: int(number)
        for number, word in _COUNT.findall(output)
        if word in ("passing", "failing", "pending")
    }


def _last_counts(output: str) -> dict[str, int]:
    # The last line with counts is the summary ("2 failed, 39 passed in 1.2s").
    if not any(word in output for word in _COUNT_WORDS):
        return {}
    for line in reversed(output.splitlines()):
        found = _COUNT.findall(line)
        if not found:
            continue
        counts: dict[str, int] = {}
        for number, word in found:
            counts[word] = counts.get(word, 0) + int(number)
        total = re.search(r"(\d+) total\b", line)
        if total:
            counts["__total__"] = int(total.group(1))
        return counts
    return {}


def _first_failure(output: str) -> str | None:
    found = None
    if "FAILED " in output or "ERROR " in output:
        found = _FAILED_TEST.search(output)
    if found is None and "●" in output:
        found = _FAILED_JEST.search(output)
    return clip(redact_text(found.group(1)), 80) if found else None


@functools.lru_cache(maxsize=64)
def match_count(output: str) -> tuple[int, str] | None:
    """How many files or lines a search found: ``(19, "files")``; ``None`` when unclear."""
    found = _FOUND.search(output) if _may_contain(output, "found") else None
    if found:
        count, noun = int(found.group(1)), found.group(2).lower()
        if noun.startswith("file"):
            return count, "files"
        return count, "matches"
    if _NOTHING.search(output):
        return 0, "files"
    lines = [line for line in output.splitlines() if line.strip() and not _not_a_hit(line)]
    if not lines:
        return 0, "files"
    # Every line a path: no ":" and no whitespace in any (the lines are not blank).
    if "\n".join(lines).split() == lines and not any(":" in line for line in lines):
        return len(lines), "files"
    return len(lines), "matches"


def _may_contain(text: str, word: str) -> bool:
    """Whether ``text`` has ``word`` in any case, as a case-blind regex would find it, for a
    lower-case ASCII word of letters no other letter folds to (not i, k or s). Such a search
    costs ~20 ns a character; an ASCII text's bytes in lower case ~0.5 ns."""
    if text.isascii():
        return word.encode("ascii") in text.encode("ascii").lower()
    return word in text.lower()


def _not_a_hit(line: str) -> bool:
    # Every shape of ``_NOT_A_HIT`` starts with "(" or "[Showing " or has a "-": most lines
    # of a long listing are ruled out without a regex call.
    if "-" not in line and not line.startswith(("(", "[Showing ")):
        return False
    return _NOT_A_HIT.match(line) is not None
