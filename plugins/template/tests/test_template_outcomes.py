"""Reading tool outputs: test summaries, match counts, the line that says what failed."""

from __future__ import annotations

import pytest
from monologue_template.outcomes import SuiteResult, match_count, suite_result
from template_scenes import done, tell, text

UNITTEST_FAIL = """\
..F.E
======================================================================
FAIL: test_limit (tests.test_client.ClientTest.test_limit)
----------------------------------------------------------------------
Ran 5 tests in 0.004s

FAILED (failures=1, errors=1)
"""
JEST = """\
 FAIL  src/client.test.ts
  ● client \u203a retries three times

Test Suites: 1 failed, 3 passed, 4 total
Tests:       2 failed, 39 passed, 41 total
Snapshots:   0 total
Time:        2.1 s
"""
MOCHA = """\
  client
    ✓ connects
    1) retries

  39 passing (2s)
  2 failing
  1 pending
"""


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("==== 2 failed, 39 passed, 1 skipped in 1.20s ====", SuiteResult(42, 2)),
        ("41 passed, 3 warnings in 0.51s", SuiteResult(41, 0)),
        ("1 error in 0.1s", SuiteResult(1, 1)),
        ("Ran 41 tests in 0.012s\n\nOK", SuiteResult(41, 0)),
        (UNITTEST_FAIL, SuiteResult(5, 2)),
        (JEST, SuiteResult(41, 2, "client")),
        (MOCHA, SuiteResult(42, 2)),
        ("test result: FAILED. 39 passed; 2 failed; 0 ignored; 0 measured", SuiteResult(41, 2)),
        ("--- PASS: TestA (0.00s)\n--- FAIL: TestB (0.01s)\nFAIL\n", SuiteResult(2, 1)),
        ("Finished in 0.2 seconds\n1 doctest, 5 tests, 1 failure\n", SuiteResult(5, 1)),
        ("compiling...\nerror: could not compile", None),
    ],
)
def test_test_run_summaries(output: str, expected: SuiteResult | None) -> None:
    assert suite_result(output) == expected


def test_the_first_failing_pytest_test_is_named() -> None:
    output = "FAILED tests/a.py::test_x - assert 1 == 2\nFAILED tests/a.py::test_y\n2 failed"
    summary = suite_result(output)
    assert summary is not None
    assert summary.first_failure == "tests/a.py::test_x"


@pytest.mark.parametrize(
    ("summary", "phrase"),
    [
        (SuiteResult(41, 2), "2 of 41 tests failed"),
        (SuiteResult(41, 0), "all 41 tests passed"),
        (SuiteResult(1, 0), "its only test passed"),
        (SuiteResult(1, 1), "1 of 1 test failed"),
        (SuiteResult(0, 0), "no tests ran"),
    ],
)
def test_summary_phrases(summary: SuiteResult, phrase: str) -> None:
    assert summary.phrase() == phrase


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("Found 19 files\nsrc/a.py", (19, "files")),
        ("Found 3 matches", (3, "matches")),
        ("No files found", (0, "files")),
        ("No matches found", (0, "files")),
        ("src/a.py\nsrc/b.py\n(Results are truncated)", (2, "files")),
        ("src/a.py:12:retries = 3\nsrc/b.py:4:retries=5", (2, "matches")),
        ("", (0, "files")),
    ],
)
def test_match_counts(output: str, expected: tuple[int, str]) -> None:
    assert match_count(output) == expected


def test_commands_that_ran_and_failed_are_not_told_as_unrun() -> None:
    """``rm: "/" may not be removed`` ran and refused: "tried to run", never "couldn't run"
    (kept for a command that never started)."""
    batch = [
        *done("Bash", 'rm: "/" may not be removed', True, command="rm -rf /"),
        *done("Bash", "(eval):1: division by zero", True, command="echo $((1/0))"),
    ]
    said = tell(batch, preset="terse")
    assert said.startswith("I tried to run `rm -rf /`") and "couldn't" not in said
    unrun = done("Bash", "(eval):1: command not found: nope", True, command="nope")
    assert tell(unrun, preset="terse").startswith("I couldn't run `nope`")


def test_the_agents_inference_and_verdicts_beside_a_failure_are_not_repeated() -> None:
    ran = done("Bash", "8.2", command="python3 t.py")
    inferred = text("The script ran and the output was 8.2, indicating that the bug is fixed.")
    assert "fixed" not in tell(*ran, inferred)
    assert "the output was 8.2." in tell(*ran, inferred)
    verdict = text("The type check passes. Now let's run the tests.")
    crashed = done("Bash", "(eval):cd:1: no such file or directory: pkg", True, command="make x")
    assert "passes" not in tell(verdict, *crashed)
