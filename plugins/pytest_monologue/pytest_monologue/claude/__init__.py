"""Test the Claude Agent SDK offline: :class:`FakeClaude` is an executable standing in for
the ``claude`` CLI, which the SDK's real ``query()`` starts and talks to as it would the real
one. Give it scenarios; pass :attr:`FakeClaude.cli` as ``ClaudeAgentOptions(cli_path=...)``.

A scenario is ``{"match": [strings], "steps": [steps]}``; the first scenario whose strings
all occur in the prompt is played. Steps are described in :mod:`.fake_cli`.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["FakeClaude"]


@dataclass(frozen=True)
class FakeClaude:
    """A fake ``claude`` executable in ``folder``, its scenarios and the log of its runs."""

    folder: Path

    @classmethod
    def create(cls, folder: Path, scenarios: list[dict[str, Any]]) -> FakeClaude:
        folder.mkdir(parents=True, exist_ok=True)
        fake = cls(folder)
        fake.write(scenarios)
        fake.log.touch()
        fake.cli.write_text(
            f'#!/bin/sh\nexec "{sys.executable}" -m pytest_monologue.claude.fake_cli'
            f' "{fake.script}" "{fake.log}"\n'
        )
        fake.cli.chmod(0o755)
        return fake

    @property
    def cli(self) -> Path:
        return self.folder / "claude"

    @property
    def script(self) -> Path:
        return self.folder / "script.json"

    @property
    def log(self) -> Path:
        return self.folder / "runs.jsonl"

    def write(self, scenarios: list[dict[str, Any]]) -> None:
        """Replaces the scenarios; the next run plays the new ones."""
        self.script.write_text(json.dumps(scenarios), encoding="utf-8")

    def prompts(self) -> list[str]:
        """The prompt of every run so far, in order."""
        return [row["prompt"] for row in self._rows() if "prompt" in row]

    def hook_answers(self) -> list[tuple[str, Any]]:
        """``(hook event, the SDK's answer)`` for every hook the fake asked about."""
        return [
            (row["hook"], row["response"].get("response")) for row in self._rows() if "hook" in row
        ]

    def _rows(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]
