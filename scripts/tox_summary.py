"""Print how many tests each tox environment ran, from tox's ``--result-json`` journal.

One line per environment, in the order tox ran them (``core: 132 passed in 9.10s``; an
environment without pytest, such as lint, says ``ok`` or ``FAILED``), then the number of
environments that passed, then ``total: N passed, N failed`` (failed counts failed tests and
errors). Exits non-zero when any environment failed or the journal cannot be read.

Usage: python scripts/tox_summary.py RESULT.json
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

# pytest's last line: "==== 3 failed, 129 passed, 2 skipped in 9.10s ====" ("-q" drops the
# equals signs); "no tests ran in 0.01s" when nothing was collected.
SUMMARY = re.compile(
    r"^=*\s*(?P<line>(?:\d+ \w+(?:, )?)+ in [\d.]+s(?: \([\d:]+\))?|no tests ran in [\d.]+s)\s*=*$",
    re.MULTILINE,
)
COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)")


def pytest_line(output: str) -> str | None:
    """The last pytest summary line in a command's output, without its equals signs."""
    found = SUMMARY.findall(output)
    return found[-1] if found else None


def counts(line: str) -> dict[str, int]:
    """``{"passed": 129, "failed": 3, "error": 0, ...}`` from a summary line."""
    tally: dict[str, int] = {}
    for number, word in COUNT.findall(line):
        kind = "error" if word.startswith("error") else word
        tally[kind] = tally.get(kind, 0) + int(number)
    return tally


def environment_report(name: str, env: dict[str, Any]) -> tuple[str, dict[str, int], bool]:
    """The line printed for one environment, its test counts, and whether it passed."""
    result = env.get("result", {})
    passed_env = bool(result.get("success", False))
    outputs = [command.get("output", "") or "" for command in env.get("test", [])]
    lines = [line for line in map(pytest_line, outputs) if line]
    tally: dict[str, int] = {}
    for line in lines:
        for kind, number in counts(line).items():
            tally[kind] = tally.get(kind, 0) + number
    if lines:
        text = "; ".join(lines)
    else:
        text = "ok" if passed_env else f"FAILED (exit code {result.get('exit_code', '?')})"
    if lines and not passed_env:
        text += f" (FAILED, exit code {result.get('exit_code', '?')})"
    return f"{name}: {text}", tally, passed_env


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    path = Path(argv[1])
    try:
        journal = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"test summary: cannot read tox's result journal {path}: {exc}", file=sys.stderr)
        return 1
    # The journal names every environment tox knows; only those with a result ran. Names
    # starting with a dot are tox's packaging environments, which run no tests.
    environments = {
        name: env
        for name, env in journal.get("testenvs", {}).items()
        if "result" in env and not name.startswith(".")
    }
    passed = failed = failed_envs = 0
    print("\ntests per environment:")
    for name, env in environments.items():
        line, tally, ok = environment_report(name, env)
        print(f"  {line}")
        passed += tally.get("passed", 0)
        failed += tally.get("failed", 0) + tally.get("error", 0)
        failed_envs += not ok
    print(f"environments: {len(environments) - failed_envs} passed, {failed_envs} failed")
    print(f"total: {passed} passed, {failed} failed")
    return 1 if failed_envs or failed or not environments else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
