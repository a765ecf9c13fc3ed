"""The hooks monologue-gate owns, added to the plugin manager when the gate registers
(``register_hookspecs``). Another plugin implementing them marks its implementation
``@hookimpl(optionalhook=True)``: without the gate it loads and is never called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from monologue import hookspec

if TYPE_CHECKING:
    from monologue import Session

__all__ = ["control", "narrator_context"]


@hookspec(firstresult=True)
def control(session: Session, context: Any) -> dict[str, Any] | None:
    """Decide whether the narrator speaks now, for a gate that asks a controller.

    Fires on the session's pipeline thread when monologue-gate (``gate = "llm"``) would
    otherwise hold
    a batch: when the held events reach ``min_buffer_size``, then every ``max_buffer_size``
    more. ``context`` carries ``prompt`` (``prompts/controller.md`` rendered: the policy,
    rolling summaries, hints and the newest events fenced as data), ``answer_schema`` (the
    answer's JSON Schema), ``timeout_s`` (finish within it) and ``problem(text)``, to say
    why you could not answer. Return the answer, ``{"speak_now", "actions", "notes"}``, as
    a dict: the caller validates it against the schema, and a malformed answer means hold,
    recorded with what is wrong. ``None`` lets the next controller answer; when none does,
    the gate holds and records the problems reported. An exception is reported and the next
    controller is asked.
    """


@hookspec(firstresult=True)
def narrator_context(session: Session) -> str | None:
    """The context a narrator should be given beyond the batch, for long sessions.

    Fires on the narrator pool thread when a narrator that uses it (the Haiku narrator)
    builds its prompt. Return a slice of the session so far, the newest events one per line
    and then a rolling summary of older ones, as monologue-gate builds it (then, at most once
    per narration); ``None`` when you keep none for this session. The text reaches the model
    redacted and marked as data.
    """
