"""The agents' prompt templates, each with the pydantic model of its parameters.

Templates are the core's ``prompts/`` files (``parser.md``, ``coding.md``, ``review.md``),
found through :mod:`monologue.prompts`, so a user's ``prompts_dir`` overrides any of them by
name. Rendering is strict: a parameter the model lacks, or a variable the template (or its
override) uses that the parameters do not give, is an error naming it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import PromptRenderError

__all__ = ["CodingPrompt", "ParserPrompt", "PromptParams", "ReviewPrompt", "render"]

_UNDEFINED = re.compile(r"'(\w+)' is undefined")


class PromptParams(BaseModel):
    """Base of the parameter models; extra fields are refused so callers cannot drift."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ParserPrompt(PromptParams):
    source_path: str
    tasks_markdown: str


class CodingPrompt(PromptParams):
    task_id: str
    description: str
    validation_criteria: str | None
    completed: str
    feedback: str
    attempt: int


class ReviewPrompt(PromptParams):
    task_id: str
    description: str
    validation_criteria: str | None
    summary: str
    handoff: str | None
    files_changed: str


def render(
    template: str,
    model: type[PromptParams],
    params: PromptParams | dict[str, Any],
    prompts_dir: Path | str | None = None,
) -> str:
    """Render ``template`` with ``params`` checked against ``model``."""
    import jinja2

    from monologue.prompts import render_prompt

    try:
        checked = model.model_validate(params)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or '(parameters)'}: {e['msg']}" for e in exc.errors()
        )
        raise PromptRenderError(f"prompt {template!r}: bad parameters: {problems}") from None
    try:
        return render_prompt(template, prompts_dir, **checked.model_dump())
    except jinja2.UndefinedError as exc:
        match = _UNDEFINED.search(str(exc))
        name = match[1] if match else str(exc)
        raise PromptRenderError(
            f"prompt {template!r} uses variable {name!r}, which {model.__name__} does not give"
        ) from None
    except LookupError as exc:
        raise PromptRenderError(str(exc)) from None
    except jinja2.TemplateSyntaxError as exc:
        raise PromptRenderError(
            f"prompt {template!r} line {exc.lineno}: template syntax error: {exc.message}"
        ) from None
