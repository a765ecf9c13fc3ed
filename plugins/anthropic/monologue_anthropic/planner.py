"""The ``plan`` hook: Claude Haiku plans which skills to run (prompts/planner.md).

The model answers through a forced ``submit_plan`` tool call, whose input schema is the plan's
JSON Schema (structured output). The answer is checked with the context's ``check``; when it
is invalid the model gets one repair turn with every problem listed, and when that fails too
(or the API does) this planner passes (``None``), so the next planner, the offline one by
default, answers. Without ``ANTHROPIC_API_KEY`` it passes at once.
"""

from __future__ import annotations

import json
import logging
import time
from typing import TYPE_CHECKING, Any, Protocol

from monologue import hookimpl

if TYPE_CHECKING:
    from monologue import Session
    from monologue.settings import MonologueConfig

__all__ = ["TOOL_NAME", "plan"]

log = logging.getLogger("monologue.anthropic.planner")

TOOL_NAME = "submit_plan"
_MAX_TOKENS = 2048
_EVENTS = 30
_EVENT_CHARS = 400
_STATE_CHARS = 4000


class PlanningContext(Protocol):
    """What monologue-skills passes to planners (``monologue_skills.PlanContext``)."""

    goal: str
    events: list[dict[str, Any]]
    history: list[str]
    state: dict[str, Any]
    skills: dict[str, Any]

    def plan_schema(self) -> dict[str, Any]: ...

    def check(self, candidate: Any) -> tuple[Any, list[str]]: ...


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _prompt(context: PlanningContext, config: MonologueConfig) -> dict[str, str]:
    from monologue.prompts import render_parts
    from monologue.redact import redact

    skills = [
        {"name": s.name, "description": s.description, "parameters": s.parameters}
        for s in context.skills.values()
    ]
    events = [
        _clip(json.dumps(redact(event), default=str), _EVENT_CHARS)
        for event in context.events[-_EVENTS:]
    ]
    fenced = "```data\n" + "\n".join(events) + "\n```" if events else "(none)"
    return render_parts(
        "planner.md",
        config.prompts_dir,
        GOAL=context.goal,
        SKILLS=json.dumps(skills, indent=1),
        STATE=_clip(json.dumps(redact(context.state)), _STATE_CHARS),
        EVENTS=fenced,
        HISTORY="\n".join(context.history) or "(nothing yet)",
    )


def _tool_input(message: Any) -> tuple[Any, str | None]:
    """The submitted plan and its tool_use id, or what the model sent instead."""
    for block in message.content:
        if getattr(block, "type", None) == "tool_use" and block.name == TOOL_NAME:
            return block.input, block.id
    text = " ".join(getattr(b, "text", "") for b in message.content).strip()
    return {"not a plan": _clip(text, 200)}, None


def _ask(context: PlanningContext, config: MonologueConfig, key: str) -> Any:
    from .models import resolve_model
    from .settings import AnthropicSettings
    from .transport import create_message

    settings = config.settings(AnthropicSettings)
    parts = _prompt(context, config)
    messages: list[dict[str, Any]] = [{"role": "user", "content": parts["user"]}]
    request: dict[str, Any] = {
        "model": resolve_model(config.model),
        "max_tokens": _MAX_TOKENS,
        "system": parts["system"],
        "tools": [
            {
                "name": TOOL_NAME,
                "description": "Submit the plan: the actions to run, in dependency order.",
                "input_schema": context.plan_schema(),
            }
        ],
        "tool_choice": {"type": "tool", "name": TOOL_NAME},
    }
    deadline = time.monotonic() + settings.planner_timeout_s
    for attempt in ("first", "repaired"):
        message = create_message(settings, key, {**request, "messages": messages}, deadline)
        candidate, use_id = _tool_input(message)
        plan, problems = context.check(candidate)
        if plan is not None:
            return plan
        log.warning("anthropic planner: %s answer is not a valid plan: %s", attempt, problems)
        if attempt == "repaired":
            break
        feedback = "The plan is invalid:\n" + "\n".join(f"- {p}" for p in problems)
        feedback += f"\nCall {TOOL_NAME} again with a corrected plan."
        messages.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})
        if use_id is None:
            messages.append({"role": "user", "content": feedback})
        else:
            messages.append(
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": use_id,
                            "is_error": True,
                            "content": feedback,
                        }
                    ],
                }
            )
    return None


@hookimpl(optionalhook=True)  # monologue-skills' hook: unused without it
def plan(session: Session | None, context: PlanningContext) -> Any:
    """A plan from Claude, or ``None`` (no key, API failure, invalid twice) to fall back."""
    from monologue.settings import load_config

    from .settings import api_key
    from .transport import NarrationError

    key = api_key()
    if key is None:
        return None
    config = session.config if session is not None else load_config()
    try:
        return _ask(context, config, key)
    except NarrationError as exc:
        log.warning("anthropic planner: %s; falling back", exc)
        return None
