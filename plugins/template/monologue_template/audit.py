"""How the template narrator reads on real Claude Code traces, mode by mode.

``python -m monologue_template.audit [TRACES]`` (default ``../shared/traces`` from the
current folder, or ``$MONOLOGUE_TRACES``) replays every Claude Code trace there
(transcripts, stream-json, Agent SDK goldens) instantly with the template narrator in each
mode (default, terse, strict gate, terse with strict) and prints, per mode and per trace:

- ``subject``: the share of narratives naming a concrete subject (a path, a command, a
  quoted name, a URL, the tests, the user's request); the brief asks >= 80% of terse lines;
- ``first``: the share in the first person (>= 95%);
- ``again``: consecutive pairs differing only by a leading "Again," (none);
- ``same``: how many of ``--runs`` replays gave exactly the first one's narratives.

It exits 1 when a target is missed. Needs monologue-claude (and monologue-gate for the
strict modes) installed.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["MODES", "Figures", "audit_trace", "main", "narratives", "traces"]

MODES: dict[str, dict[str, Any]] = {
    "default": {},
    "terse": {"preset": "terse"},
    "strict": {"gate": "strict"},
    "terse+strict": {"preset": "terse", "gate": "strict"},
}
FOLDERS = ("claude-code-transcript", "claude-stream-json", "agent-sdk-golden")
TARGETS = {"terse_subject": 0.80, "first": 0.95}

_SUBJECT = re.compile(
    r"`[^`]+`|\"[^\"]+\"|\w[\w-]*[./]\w|https?://|\btests?\b|\btest suite\b|\btest run\b"
    r"|^You asked me to "  # the request itself, in the user's words
)
_FIRST = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|my|My)\b|^You\b|^\(The conversation")
_AGAIN = re.compile(r"^(?:Again|Once more),\s*", re.IGNORECASE)


@dataclass
class Figures:
    """One trace in one mode."""

    trace: str
    mode: str
    narratives: int = 0
    subject: int = 0
    first: int = 0
    again_pairs: int = 0
    same_runs: int = 0
    runs: int = 0
    problem: str = ""

    def share(self, count: int) -> float:
        return count / self.narratives if self.narratives else 1.0


def traces(root: Path) -> list[Path]:
    """The Claude Code traces under ``root``, sorted."""
    found: list[Path] = []
    for folder in FOLDERS:
        directory = root / folder
        if directory.is_dir():
            found += sorted(
                path
                for path in directory.rglob("*")
                if path.is_file() and path.suffix in (".json", ".jsonl")
            )
    return found


def narratives(path: Path, settings: dict[str, Any]) -> list[str]:
    """What an instant ``monologue replay --narrator template`` of ``path`` says."""
    from monologue import Session
    from monologue.recording import open_session
    from monologue.settings import load_config

    said: list[str] = []
    events, _ = open_session(path)
    session: Session | None = None
    held = None
    for event in events:
        if session is None:
            config = load_config({"narrator": "template", **settings})
            session = Session(
                getattr(events, "agent", None) or event.agent or "agent", config=config
            )
            session.subscribe(lambda narrative: said.append(str(narrative.data["text"])))
            session.start()
        if event.type == "completion":
            held = event
            continue
        if event.type in ("narrative", "narration_suppressed", "summary_refresh"):
            continue
        session.dispatch(event)
        session.wait_idle()
    if session is not None:
        session.close(result=held.data.get("result") if held else None)
    return said


def audit_trace(path: Path, mode: str, runs: int) -> Figures:
    figures = Figures(path.name, mode, runs=runs)
    try:
        said = narratives(path, MODES[mode])
    except Exception as exc:  # an unreadable trace is reported, not fatal
        figures.problem = f"{type(exc).__name__}: {str(exc).splitlines()[0][:80]}"
        return figures
    figures.narratives = len(said)
    figures.subject = sum(bool(_SUBJECT.search(text)) for text in said)
    figures.first = sum(bool(_FIRST.search(text)) for text in said)
    bare = [_AGAIN.sub("", text).lower() for text in said]
    figures.again_pairs = sum(
        1
        for before, after, raw_before, raw_after in zip(
            bare, bare[1:], said, said[1:], strict=False
        )
        if before == after and raw_before != raw_after
    )
    figures.same_runs = 1 + sum(narratives(path, MODES[mode]) == said for _ in range(runs - 1))
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m monologue_template.audit")
    parser.add_argument(
        "traces",
        nargs="?",
        type=Path,
        default=Path(os.environ.get("MONOLOGUE_TRACES", "../shared/traces")),
    )
    parser.add_argument("--runs", type=int, default=10, help="replays per trace and mode")
    args = parser.parse_args(argv)
    found = traces(args.traces)
    if not found:
        print(f"no Claude Code traces under {args.traces}", file=sys.stderr)
        return 2
    missed = False
    for mode in MODES:
        rows = [audit_trace(path, mode, args.runs) for path in found]
        print(f"\n== {mode}")
        print(f"{'trace':44} {'n':>4} {'subject':>8} {'first':>7} {'again':>6} {'same':>6}")
        for row in rows:
            if row.problem:
                print(f"{row.trace[:44]:44} unreadable: {row.problem}")
                continue
            print(
                f"{row.trace[:44]:44} {row.narratives:>4} {row.share(row.subject):>8.0%} "
                f"{row.share(row.first):>7.0%} {row.again_pairs:>6} "
                f"{row.same_runs:>3}/{row.runs}"
            )
        read = [row for row in rows if not row.problem]
        total = sum(row.narratives for row in read) or 1
        subject = sum(row.subject for row in read) / total
        first = sum(row.first for row in read) / total
        again = sum(row.again_pairs for row in read)
        same = all(row.same_runs == row.runs for row in read)
        print(
            f"{'all (' + str(len(read)) + ' traces)':44} {total:>4} {subject:>8.0%} "
            f"{first:>7.0%} {again:>6} {'yes' if same else 'NO':>6}"
        )
        terse = mode.startswith("terse")
        missed |= (terse and subject < TARGETS["terse_subject"]) or first < TARGETS["first"]
        missed |= bool(again) or not same
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
