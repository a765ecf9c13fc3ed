"""The ``control`` hook: Claude Haiku decides whether the narrator speaks now.

monologue-gate asks it in ``gate = "llm"`` mode, when it would otherwise hold a batch. The
prompt is the gate's ``prompts/controller.md``, rendered by the gate (``context.prompt``);
the answer is forced through a ``submit_decision`` tool call whose input schema is the
gate's (``context.answer_schema``), so the model answers with structured JSON. The answer is
returned as the model gave it: the gate validates it, and holds when it is malformed. A
reply with no tool call is read as JSON text when it is some.

The request must end within ``context.timeout_s`` (it runs on the agent's thread): an API
failure or a late answer is reported through ``context.problem`` and this controller passes
(``None``), so the gate holds and records why. Without ``ANTHROPIC_API_KEY`` it passes at once.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any, Protocol

from monologue import hookimpl

if TYPE_CHECKING:
    from monologue import Session

__all__ = ["TOOL_NAME", "ControlContext", "control"]

TOOL_NAME = "submit_decision"
SYSTEM = (
    "You are the controller of a narrated AI agent: you decide when its narrator speaks. "
    f"Answer only by calling {TOOL_NAME} with your decision."
)
_MAX_TOKENS = 300
_SHOWN = 120


class ControlContext(Protocol):
    """What monologue-gate passes to controllers (``monologue_gate.ControlRequest``)."""

    prompt: str
    answer_schema: dict[str, Any]
    timeout_s: float

    def problem(self, text: str) -> None: ...


def _clip(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _answer(message: Any, context: ControlContext) -> dict[str, Any] | None:
    """The submitted decision, or the reply's JSON text; else the problem is reported."""
    for block in message.content:
        if getattr(block, "type", None) == "tool_use" and block.name == TOOL_NAME:
            return dict(block.input) if isinstance(block.input, dict) else {"input": block.input}
    text = "".join(getattr(block, "text", "") for block in message.content).strip()
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        return parsed
    context.problem(
        f"malformed answer from anthropic: no {TOOL_NAME} call and no JSON object, "
        f"but {_clip(text)!r}"
    )
    return None


@hookimpl(optionalhook=True)  # monologue-gate's hook: unused without the gate
def control(session: Session, context: ControlContext) -> dict[str, Any] | None:
    """Claude's decision as a dict, or ``None`` (no key, API failure, timeout, no answer)."""
    from .models import resolve_model
    from .settings import AnthropicSettings, api_key
    from .transport import NarrationError, create_message

    key = api_key()
    if key is None:
        context.problem("anthropic: ANTHROPIC_API_KEY is not set")
        return None
    settings = session.config.settings(AnthropicSettings)
    request: dict[str, Any] = {
        "model": resolve_model(session.config.model),
        "max_tokens": _MAX_TOKENS,
        "system": SYSTEM,
        "messages": [{"role": "user", "content": context.prompt}],
        "tools": [
            {
                "name": TOOL_NAME,
                "description": "Submit the decision: speak now or hold, and why.",
                "input_schema": context.answer_schema,
            }
        ],
        "tool_choice": {"type": "tool", "name": TOOL_NAME},
    }
    deadline = time.monotonic() + context.timeout_s
    try:
        message = create_message(settings, key, request, deadline)
    except NarrationError as exc:
        context.problem(
            f"anthropic controller gave no decision within controller_timeout_s "
            f"({context.timeout_s:g} s): {exc}"
        )
        return None
    return _answer(message, context)
