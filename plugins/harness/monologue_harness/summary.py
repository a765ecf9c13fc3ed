"""The result of a harness run: counts, retries, duration, tokens and cost."""

from __future__ import annotations

from pydantic import BaseModel, Field

from .checkpoint import TaskState
from .models import RunUsage

__all__ = ["HarnessSummary"]


class HarnessSummary(BaseModel):
    tasks: dict[str, TaskState]
    """Every task's final state, in dependency order (the blocked ones last)."""
    cycles: list[list[str]] = Field(default_factory=list)
    duration_s: float
    usage: RunUsage
    """Tokens and cost of every agent run, from the SDK's result messages (parser included)."""
    stopped_early: bool = False
    """True when fail-fast stopped the run after a failed task."""
    checkpoint: str | None = None
    """The checkpoint file the run wrote."""
    recordings: list[str] = Field(default_factory=list)
    """The session recordings the run wrote (the harness's and each agent run's), if a
    recorder plugin recorded them: live runs are, replays only with ``record = true``."""

    def count(self, status: str) -> int:
        return sum(state.status == status for state in self.tasks.values())

    @property
    def retries(self) -> int:
        return sum(state.retries for state in self.tasks.values())

    @property
    def ok(self) -> bool:
        return not any(s.status in ("failed", "blocked", "not_run") for s in self.tasks.values())

    def counts(self) -> dict[str, int]:
        statuses = ("validated", "failed", "blocked", "complete", "not_run")
        return {"total": len(self.tasks), **{s: self.count(s) for s in statuses}}

    def report(self) -> dict[str, object]:
        """The summary as the JSON ``monologue harness run --json`` prints."""
        return {
            "ok": self.ok,
            "counts": self.counts(),
            "retries": self.retries,
            "cycles": self.cycles,
            "duration_s": round(self.duration_s, 3),
            "input_tokens": self.usage.input_tokens,
            "output_tokens": self.usage.output_tokens,
            "cost_usd": round(self.usage.cost_usd, 6),
            "stopped_early": self.stopped_early,
            "checkpoint": self.checkpoint,
            "recordings": self.recordings,
            "tasks": {k: v.model_dump(exclude={"usage"}) for k, v in self.tasks.items()},
        }
