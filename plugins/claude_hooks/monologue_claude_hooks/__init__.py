"""monologue-claude-hooks: live narration of Claude Code sessions through their hooks
(``monologue hook install``), and chapters for every session, live or replayed.

The hook command itself is the stdlib-only ``monologue_hook`` module (``monologue-hook``);
this package is the collector, the settings installer, the chapters and the voice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from monologue import hookimpl

if TYPE_CHECKING:
    import click
    from pydantic import BaseModel

    from monologue import Session
    from monologue.events import Event

__all__ = ["on_event", "register_commands", "register_event_types", "register_settings"]

_STATE = "claude_hooks.chapters"
_SKIPPED = frozenset({"narrative", "narration_suppressed", "summary_refresh", "hint"})


@hookimpl
def register_event_types(register: Callable[..., None]) -> None:
    from .chapters import CHAPTER_TYPE, ChapterData

    # A heading for readers and the voice, never itself narrated.
    register(CHAPTER_TYPE, ChapterData, narrated=False)


@hookimpl
def register_settings() -> type[BaseModel]:
    from .settings import ClaudeHooksSettings

    return ClaudeHooksSettings


@hookimpl
def on_event(session: Session, event: Event) -> None:
    from .chapters import CHAPTER_TYPE, ChapterBuilder
    from .settings import ClaudeHooksSettings

    if event.type in _SKIPPED:
        return
    builder = session.state.get(_STATE)
    if builder is None:
        settings = session.config.settings(ClaudeHooksSettings)
        if not settings.chapters:
            session.state[_STATE] = False
            return
        builder = session.state[_STATE] = ChapterBuilder(
            session.agent,
            idle_s=settings.chapter_idle_s,
            passive=_has_chapters(session.meta.get("replay_of")),
        )
    if builder is False:
        return
    if event.type == CHAPTER_TYPE:
        builder.saw_chapter(event.id)
        return
    chapter = builder.feed(event)
    if chapter is not None:
        from .haiku import wanted, write_chapter

        if wanted(session):
            chapter = write_chapter(session, chapter, [event])
        made = session.make_event(CHAPTER_TYPE, chapter.model_dump(exclude_none=True), ts=event.ts)
        builder.made(made.id)
        session.dispatch(made)


def _has_chapters(replayed: Any) -> bool:
    """Whether the file a replay reads has chapters of its own (then they are kept and none
    are added: the first would come after the event it covers, too late to know)."""
    if not isinstance(replayed, str):
        return False
    mark = b'"type":"chapter"'
    tail = b""
    try:
        with open(replayed, "rb") as handle:
            while chunk := handle.read(1 << 20):
                if mark in tail + chunk:
                    return True
                tail = chunk[-len(mark) :]
    except OSError:
        return False
    return False


@hookimpl
def register_commands(cli: click.Group) -> None:
    from .cli import hook

    cli.add_command(hook)
