"""``gate = "llm"``: a model-backed controller, asked through the ``control`` hook.

The gate does not import any model SDK: it renders ``prompts/controller.md`` with
:class:`~monologue_gate.controller.ControllerRunner`, passes it in a :class:`ControlRequest`
to the first plugin implementing ``control`` (monologue-anthropic's Haiku controller), and
validates the answer with :class:`~monologue_gate.controller.Decision`. No answer, a
malformed one, or a controller that ran out of time means *hold*, and the reason says which.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .controller import Decision

if TYPE_CHECKING:
    from monologue import Session

    from .controller import ControllerRunner

__all__ = ["NO_CONTROLLER", "ControlRequest", "ask_controller"]

NO_CONTROLLER = (
    "no controller answered (gate = 'llm' needs a plugin implementing the control hook, "
    "e.g. monologue-anthropic with ANTHROPIC_API_KEY set)"
)


class ControlRequest(BaseModel):
    """The ``context`` of the ``control`` hook: what a controller needs to decide."""

    model_config = ConfigDict(frozen=True)

    prompt: str
    """``prompts/controller.md`` rendered: policy, summaries, hints, the newest events."""
    answer_schema: dict[str, Any]
    """The JSON Schema the answer must match: ``{"speak_now", "actions", "notes"}``."""
    timeout_s: float = Field(gt=0)
    """Seconds the controller may take; it runs on the agent's thread."""
    problems: list[str] = Field(default_factory=list)
    """Why controllers could not answer, as they reported it with :meth:`problem`."""

    def problem(self, text: str) -> None:
        """Say why you could not answer (a timeout, an API error, a reply that is not JSON)."""
        self.problems.append(text)


def _hold(why: str) -> dict[str, Any]:
    return {"speak_now": False, "actions": [], "notes": why}


def _malformed(plugin: str | None, answer: Any, exc: ValidationError) -> str:
    error = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in error["loc"]) or "answer"
    shown = repr(answer)
    shown = shown if len(shown) <= 120 else shown[:119] + "…"
    return f"malformed answer from {plugin}: {where}: {error['msg']} (got {shown})"


def ask_controller(
    session: Session, runner: ControllerRunner, hints: list[str], timeout_s: float
) -> dict[str, Any]:
    """The controller's validated decision; a hold whose notes say why when there is none."""
    request = ControlRequest(
        prompt=runner.live_controller_prompt(hints),
        answer_schema=Decision.model_json_schema(),
        timeout_s=timeout_s,
    )
    answer, plugin = session.hooks.first("control", session=session, context=request)
    if answer is None:
        return _hold("; ".join(request.problems) or NO_CONTROLLER)
    try:
        # Strict: a JSON Schema accepts no "yes" for true, nor may we.
        decision = Decision.model_validate(answer, strict=True)
    except ValidationError as exc:
        return _hold(_malformed(plugin, answer, exc))
    return decision.model_dump()
