"""Chapter titles and summaries written by Claude Haiku, when the session narrates with
monologue-anthropic (``narrator = "anthropic"``, or ``"auto"`` with ``ANTHROPIC_API_KEY``).

The offline chapter (:mod:`.chapters`) is always built first: it decides where a chapter
starts, and it goes out whenever Haiku's cannot. Haiku is asked once, through
monologue-anthropic's client (its settings, retry policy and model aliases), with the
``prompts/chapter.md`` template and the events that open the chapter; it must answer one
JSON object, :class:`HaikuChapter`, within ``chapter_timeout_s``. Its title and summary are
then held against those events by monologue-check's claim checker, as a narrative is. An API
error, no answer in time, an answer that is not that object (a title outside three to six
words, say), a false claim, or either plugin missing: the offline chapter is kept, marked
``writer: "offline"`` with the ``fallback`` reason, and the reason is logged.

This runs where chapters are made, on the session's pipeline thread: in the collector for
live hooks, in the replaying process for a replay. Never in the hook command, which only
hands its payload over, and never on the agent's thread.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

if TYPE_CHECKING:
    from monologue import Session
    from monologue.events import Event

    from .chapters import ChapterData

__all__ = ["DEFAULT_TIMEOUT_S", "HaikuChapter", "wanted", "write_chapter"]

log = logging.getLogger("monologue.claude_hooks")

DEFAULT_TIMEOUT_S = 3.0
"""How long a chapter waits for Haiku (``chapter_timeout_s``) before the offline one goes."""
_MAX_TOKENS = 200
_SHOWN = 80


class HaikuChapter(BaseModel):
    """The answer Haiku must give: exactly this JSON object."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    title: str = Field(min_length=1, max_length=60)
    summary: str = Field(min_length=1, max_length=200)

    @field_validator("title", "summary")
    @classmethod
    def _one_line(cls, value: str) -> str:
        if "\n" in value:
            raise ValueError("must be one line")
        return value

    @field_validator("title")
    @classmethod
    def _three_to_six_words(cls, value: str) -> str:
        words = len(value.split())
        if not 3 <= words <= 6:
            raise ValueError(f"has {words} words, not 3 to 6")
        return value


class _Fallback(Exception):
    """Why the offline chapter goes out instead."""


def wanted(session: Session) -> bool:
    """Whether ``session``'s chapters are Haiku's to write: it narrates with Claude."""
    return session.narrator == "anthropic"


def write_chapter(session: Session, chapter: ChapterData, events: list[Event]) -> ChapterData:
    """``chapter`` with Haiku's title and summary (``writer: "haiku"``), or as it is, marked
    ``writer: "offline"`` with the reason (logged) when Haiku's cannot be used."""
    try:
        written = _ask(session, chapter, events)
    except Exception as exc:
        # Any failure at all, expected (_Fallback) or not: the chapter still goes out.
        why = str(exc) if isinstance(exc, _Fallback) else f"{type(exc).__name__}: {exc}"
        log.warning(
            "session %s: the offline chapter %r is kept: %s", session.id, chapter.title, why
        )
        return chapter.model_copy(update={"writer": "offline", "fallback": why})
    return chapter.model_copy(
        update={"title": written.title, "summary": written.summary, "writer": "haiku"}
    )


def _clip(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _ask(session: Session, chapter: ChapterData, events: list[Event]) -> HaikuChapter:
    try:
        from monologue_anthropic.models import resolve_model
        from monologue_anthropic.prompting import event_lines
        from monologue_anthropic.settings import AnthropicSettings, api_key
        from monologue_anthropic.transport import NarrationError, create_message, get_client
    except ImportError as exc:
        raise _Fallback(f"monologue-anthropic is not installed ({exc})") from None
    from monologue.prompts import render_parts
    from monologue.redact import redact_text

    from .settings import ClaudeHooksSettings

    key = api_key()
    if key is None:
        raise _Fallback("ANTHROPIC_API_KEY is not set")
    config = session.config
    settings = config.settings(AnthropicSettings)
    parts = render_parts(
        "chapter.md",
        config.prompts_dir,
        agent=session.agent,
        reason=chapter.reason,
        title=chapter.title,
        summary=chapter.summary,
        events=event_lines(events, session.agent, settings),
    )
    request: dict[str, Any] = {
        "model": resolve_model(config.model),
        "max_tokens": _MAX_TOKENS,
        "system": parts["system"],
        "messages": [{"role": "user", "content": redact_text(parts["user"])}],
    }
    timeout_s = config.settings(ClaudeHooksSettings).chapter_timeout_s
    # The SDK's import and client (once per process, seconds on a busy machine) before the
    # clock starts: the deadline is for Haiku's answer.
    get_client(key, settings.resolved_base_url())
    try:
        message = create_message(settings, key, request, time.monotonic() + timeout_s)
    except NarrationError as exc:
        raise _Fallback(f"no answer from Haiku within chapter_timeout_s: {exc}") from None
    text = "".join(
        str(getattr(block, "text", ""))
        for block in message.content
        if getattr(block, "type", "") == "text"
    ).strip()
    try:
        written = HaikuChapter.model_validate_json(text)
    except ValidationError as exc:
        problem = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in problem["loc"]) or "the answer"
        why = str(problem["msg"]).removeprefix("Value error, ")
        raise _Fallback(f"invalid answer {_clip(text)!r}: {where}: {why}") from None
    false = _false_claims(f"{written.title}. {written.summary}", events)
    if false:
        raise _Fallback(f"false claims in {_clip(written.summary)!r}: {'; '.join(false)}")
    return written


def _false_claims(text: str, events: list[Event]) -> list[str]:
    """What the claim checker finds false in ``text``, held against the chapter's events.

    The checker is called directly, with no session history: its session ledger belongs to
    the narration worker (one check at a time, in the narratives' order), and a chapter is
    made on the pipeline thread. Without history, "again" claims fail: the offline chapter
    goes instead, which is the safe side.
    """
    try:
        from monologue_check.evidence import Evidence
        from monologue_check.verify import check_text
    except ImportError:
        raise _Fallback("no claim checker (monologue-check) is installed") from None
    _, violations = check_text(text, Evidence.of(events))
    return [f"{v.kind}: {v.why}" for v in violations]
