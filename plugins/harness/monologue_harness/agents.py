"""The harness's three agents: parser, coder, reviewer, and the context each accepts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .agent import Agent, AgentOptions
from .models import CodingResult, ParsedTasks, ReviewVerdict, Task
from .run_outcome import RunOutcome
from .templates import CodingPrompt, ParserPrompt, PromptParams, ReviewPrompt

__all__ = [
    "CodingAgent",
    "CodingContext",
    "ParserAgent",
    "ParserContext",
    "ReviewAgent",
    "ReviewContext",
]


class _Context(BaseModel):
    # The harness hands every agent its whole state; each takes the fields it declares.
    model_config = ConfigDict(extra="ignore", frozen=True)


class ParserContext(_Context):
    tasks_markdown: str
    source_path: str


class CodingContext(_Context):
    task: Task
    completed: list[Task] = Field(default_factory=list)
    feedback: str = ""
    attempt: int = 1


class ReviewContext(_Context):
    task: Task
    coding: CodingResult


class _CoderOutput(BaseModel):
    """What the coder states; files, usage and cost come from its messages."""

    model_config = ConfigDict(populate_by_name=True)

    summary: str
    stopReason: str = "finished"
    handoff: str | None = None


class _ReviewerOutput(BaseModel):
    decision: str
    confidence: float | None = None
    feedback: str = ""


class ParserAgent(Agent[ParserContext, ParsedTasks]):
    """A spec-kit tasks file → :class:`ParsedTasks`, through structured output."""

    name = "parser"
    template = "parser.md"
    params_model = ParserPrompt
    context_schema = ParserContext
    result_schema = ParsedTasks
    default_options = AgentOptions(allowed_tools=[], max_turns=3)

    def prompt_params(self, context: ParserContext) -> PromptParams:
        return ParserPrompt(source_path=context.source_path, tasks_markdown=context.tasks_markdown)

    def task_of(self, context: ParserContext) -> str | None:
        return context.source_path

    def build_result(self, output: Mapping[str, Any], outcome: RunOutcome) -> ParsedTasks:
        return ParsedTasks.model_validate(output)


class CodingAgent(Agent[CodingContext, CodingResult]):
    """A task (and the reviewer's feedback, on a retry) → :class:`CodingResult`."""

    name = "coder"
    template = "coding.md"
    params_model = CodingPrompt
    context_schema = CodingContext
    result_schema = _CoderOutput
    default_options = AgentOptions(
        allowed_tools=["Read", "Write", "Edit", "Glob", "Grep", "Bash"],
        permission_mode="acceptEdits",
        max_turns=30,
    )

    def prompt_params(self, context: CodingContext) -> PromptParams:
        task = context.task
        return CodingPrompt(
            task_id=task.id,
            description=task.description,
            validation_criteria=task.validation_criteria,
            completed="\n".join(f"{t.id}: {t.description}" for t in context.completed),
            feedback=context.feedback,
            attempt=context.attempt,
        )

    def task_of(self, context: CodingContext) -> str | None:
        return context.task.id

    def build_result(self, output: Mapping[str, Any], outcome: RunOutcome) -> CodingResult:
        return CodingResult.model_validate(
            {**output, "files_changed": outcome.files_changed, "usage": outcome.usage}
        )


class ReviewAgent(Agent[ReviewContext, ReviewVerdict]):
    """A task and the coder's result → :class:`ReviewVerdict`."""

    name = "reviewer"
    template = "review.md"
    params_model = ReviewPrompt
    context_schema = ReviewContext
    result_schema = _ReviewerOutput
    default_options = AgentOptions(
        allowed_tools=["Read", "Glob", "Grep", "Bash"], permission_mode="default", max_turns=20
    )

    def prompt_params(self, context: ReviewContext) -> PromptParams:
        task, coding = context.task, context.coding
        return ReviewPrompt(
            task_id=task.id,
            description=task.description,
            validation_criteria=task.validation_criteria,
            summary=coding.summary,
            handoff=coding.handoff,
            files_changed="\n".join(coding.files_changed),
        )

    def task_of(self, context: ReviewContext) -> str | None:
        return context.task.id

    def build_result(self, output: Mapping[str, Any], outcome: RunOutcome) -> ReviewVerdict:
        return ReviewVerdict.model_validate({**output, "usage": outcome.usage})
