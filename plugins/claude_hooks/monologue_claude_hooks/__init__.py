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

    from monologue import MonologueConfig, Session
    from monologue.events import Event

__all__ = ["describe_settings", "on_event", "register_commands", "register_event_types"]

_STATE = "claude_hooks.chapters"
_SKIPPED = frozenset({"narrative", "narration_suppressed", "summary_refresh", "hint"})


@hookimpl
def register_event_types(register: Callable[..., None]) -> None:
    from .chapters import CHAPTER_TYPE, ChapterData

    # A heading for readers and the voice, never itself narrated.
    register(CHAPTER_TYPE, ChapterData, narrated=False)


@hookimpl
def describe_settings(config: MonologueConfig) -> dict[str, Any]:
    from monologue_hook import runtime_dir

    from .chapters import DEFAULT_IDLE_S
    from .collector import DEFAULT_IDLE_S as HOOK_IDLE_S
    from .collector import DEFAULT_SERVE_PORT
    from .haiku import DEFAULT_TIMEOUT_S as HAIKU_TIMEOUT_S

    return {
        "chapters": _chapters_on(config),
        "chapter_idle_s": float(config.option("chapter_idle_s", DEFAULT_IDLE_S)),
        "chapter_timeout_s": float(config.option("chapter_timeout_s", HAIKU_TIMEOUT_S)),
        # Read by the hook client from MONOLOGUE_HOOK_DIR only: it parses no configuration.
        "hook_dir": config.option("hook_dir") or runtime_dir(),
        "hook_idle_s": float(config.option("hook_idle_s", HOOK_IDLE_S)),
        "speak_command": config.option("speak_command") or "espeak-ng (or say on macOS)",
        "hook_speak_wav_dir": config.option("hook_speak_wav_dir"),
        "hook_serve_port": int(config.option("hook_serve_port", DEFAULT_SERVE_PORT)),
    }


def _chapters_on(config: MonologueConfig) -> bool:
    value = config.option("chapters", True)
    return (
        value
        if isinstance(value, bool)
        else str(value).strip().lower() not in ("0", "false", "no", "off")
    )


@hookimpl
def on_event(session: Session, event: Event) -> None:
    from .chapters import CHAPTER_TYPE, DEFAULT_IDLE_S, ChapterBuilder

    if event.type in _SKIPPED:
        return
    builder = session.state.get(_STATE)
    if builder is None:
        if not _chapters_on(session.config):
            session.state[_STATE] = False
            return
        idle_s = float(session.config.option("chapter_idle_s", DEFAULT_IDLE_S))
        builder = session.state[_STATE] = ChapterBuilder(
            session.agent, idle_s=idle_s, passive=_has_chapters(session.meta.get("replay_of"))
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
