"""``monologue replay --check``: each regenerated narrative's claim check is counted, the
false ones are shown with why, and the exit status says whether any was false."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_monologue import MockNarrator, PluginSandbox
from viewing_support import Cli, recording_of

from monologue import hookimpl
from monologue.checking import ClaimCheck, Violation


class PassIsFalse:
    """A throwaway checker: any narration saying "passed" is false."""

    @hookimpl
    def check_narrative(self, text: str) -> ClaimCheck:
        if "passed" in text:
            wrong = Violation(kind="outcome", claim="passed", why="no result shows a pass")
            return ClaimCheck(claims=1, violations=[wrong], safe_text="I read a file.")
        return ClaimCheck(claims=1)


@pytest.fixture
def recording(recorder: PluginSandbox, record_dir: Path) -> Path:
    with recorder.session("coder", narrator="none") as s:
        for name in ("client.py", "config.py"):
            call = s.tool_call("Read", {"file_path": name})
            s.tool_result(call.data["tool_use_id"], f"contents of {name}")
    return recording_of(record_dir, s.id)


def test_false_narratives_are_listed_and_fail_the_replay(
    run_cli: Cli, recording: Path, recorder: PluginSandbox, mock_narrator: MockNarrator
) -> None:
    recorder.register(PassIsFalse(), "pass-is-false")
    mock_narrator.default = "I read the files and the tests passed."
    result = run_cli("replay", "--check", str(recording))
    assert result.exit_code == 1
    assert "passed" not in result.stdout  # the safe text was told instead
    assert "✗ I read the files and the tests passed." in result.stderr
    assert "outcome: no result shows a pass" in result.stderr
    assert "replaced by: I read a file." in result.stderr
    assert "0 true" in result.stderr and "(0 retried," in result.stderr


def test_true_narratives_pass(
    run_cli: Cli, recording: Path, recorder: PluginSandbox, mock_narrator: MockNarrator
) -> None:
    recorder.register(PassIsFalse(), "pass-is-false")
    mock_narrator.default = "I read client.py and config.py."
    result = run_cli("replay", "--check", str(recording))
    assert result.exit_code == 0, result.stderr
    assert "0 false (0 retried, 0 replaced), 0 unchecked" in result.stderr


def test_without_a_checker_it_is_a_one_line_usage_error(
    run_cli: Cli, recording: Path, mock_narrator: MockNarrator
) -> None:
    result = run_cli("replay", "--check", str(recording))
    assert result.exit_code == 2
    assert "--check needs a claim checker plugin" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_recorded_narratives_are_audited_by_monologue_check_instead(
    run_cli: Cli, recording: Path, recorder: PluginSandbox
) -> None:
    recorder.register(PassIsFalse(), "pass-is-false")
    result = run_cli("replay", "--check", "--recorded", str(recording))
    assert result.exit_code == 2
    assert "monologue check" in result.stderr
