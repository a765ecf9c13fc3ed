"""What a narrator returns."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from . import Usage

WAIT_ANSWERS = frozenset({"", "...", "…"})
"""Answers that mean *keep buffering* (compared after stripping whitespace)."""


class Narration(BaseModel):
    """A narrator's answer with its cost data; a bare ``str`` is accepted too."""

    model_config = ConfigDict(extra="forbid")

    text: str
    model: str | None = None
    usage: Usage | None = None
    checked: dict[str, Any] | None = None
    """The claim check's record (see :mod:`monologue.checking`), set by the core."""

    @property
    def is_wait(self) -> bool:
        return self.text.strip() in WAIT_ANSWERS


def as_narration(answer: object) -> Narration | None:
    """Normalise a ``narrate`` answer: ``None`` for *wait*, a :class:`Narration` otherwise
    (a *wait* that reported usage stays a Narration, whose ``is_wait`` is true, so that its
    cost is recorded).

    Raises ``TypeError`` for anything that is neither text nor a Narration, so that a narrator
    returning garbage is reported like a narrator that raised.
    """
    if answer is None:
        return None
    if isinstance(answer, str):
        answer = Narration(text=answer)
    if not isinstance(answer, Narration):
        raise TypeError(f"narrate must return str, Narration or None, got {type(answer).__name__}")
    return None if answer.is_wait and answer.usage is None else answer
