"""monologue's own recording format: a header line, then one event a line (docs/formats.md).

Reading: :func:`open_session` (any session file: a recording, or what an installed reader
plugin knows), :func:`read_recording` (every event of a recording, lazily), :func:`read_header`,
:class:`RecordingDecoder` (one line at a time, the ``line_parser`` protocol) and
:class:`LineTail` (the complete lines appended to a live file since the last read). A bad line
(not JSON, not an event, longer than ``MAX_LINE_BYTES``) is skipped with a warning naming the
file and the 1-based line, and reading goes on; with ``strict=True`` it raises
:class:`~monologue.errors.RecordingError` instead, *after* the good events before it were
produced. An incomplete last line (no newline at the end) is what a process killed in the
middle of a write leaves behind: it is skipped with a warning even when strict.

Writing: :func:`header_line` and :func:`event_line` give the lines a recorder writes, secrets
redacted and each event within its size budget (:func:`max_event_bytes`);
:func:`record_setting` and :func:`recording_path` are the settings every recorder and viewer
agree on. Durability (when lines reach the disk) is the recorder plugin's job.

Redaction: the header names the rules the lines were redacted under
(:func:`redaction_rules`). Reading a recording whose every header names the rules in effect,
the events are marked :attr:`~monologue.events.Event.already_redacted` and a session's
pipeline does not redact them again; any other file's events are redacted as any event is.

Nothing heavy is imported at module level: recorder plugins import this module whenever
``monologue`` starts.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from monologue.errors import MonologueError
from monologue.lines import DEFAULT_MAX_EVENT_BYTES, remembered_line
from monologue.redact import redact

from ._budget import TRUNCATED_KEY, fit_line
from ._reading import (
    HEADER_PREFIX,
    RecordingDecoder,
    RecordingReader,
    looks_like_recording,
    read_header,
    read_recording,
)
from ._rules import redaction_rules
from ._tail import LineTail, line_too_long

if TYPE_CHECKING:
    from collections.abc import Iterable

    from monologue.events import Event
    from monologue.pipeline._session import Session
    from monologue.plugins._hooks import Hooks
    from monologue.settings import MonologueConfig

__all__ = [
    "HEADER_PREFIX",
    "OWN_FORMAT",
    "TRUNCATED_KEY",
    "LineTail",
    "RecordingDecoder",
    "RecordingReader",
    "event_line",
    "find_recording",
    "header_line",
    "json_safe",
    "line_too_long",
    "looks_like_recording",
    "max_event_bytes",
    "open_session",
    "parser_for",
    "read_header",
    "read_recording",
    "record_setting",
    "recording_path",
    "redaction_rules",
]

log = logging.getLogger("monologue.recording")

OWN_FORMAT: Final = "monologue"
"""Who read a file, when the core read it itself: it is a monologue recording."""
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


# -- settings ----------------------------------------------------------------------------


def record_setting(config: MonologueConfig) -> bool | None:
    """The ``record`` setting: ``None`` (unset: live sessions yes, replays no), True, False."""
    return config.record


def max_event_bytes(config: MonologueConfig) -> int:
    """The ``record_max_event_bytes`` setting: the most bytes one recorded event's line may
    take (default 1 MiB); longer events are cut to fit and say so (``data["_truncated"]``)."""
    return config.record_max_event_bytes


def recording_path(config: MonologueConfig, session_id: str) -> Path:
    """Where session ``session_id`` is recorded: ``<record_dir>/<session_id>.jsonl``."""
    return config.resolved_record_dir() / f"{session_id}.jsonl"


# -- writing -----------------------------------------------------------------------------


def header_line(session: Session) -> str:
    """The first line of ``session``'s recording (without its newline); ``meta`` redacted,
    and the :func:`redaction_rules` its lines are redacted under named."""
    from monologue.events import RecordingHeader, utcnow

    # The rules its lines are redacted under (event_line): a reader under the same rules
    # need not redact them again.
    extra: dict[str, Any] = {"redaction": redaction_rules()}
    if session.task_id:
        extra["task_id"] = session.task_id
    header = RecordingHeader(
        session_id=session.id,
        agent=session.agent,
        started_at=session.started_at or utcnow(),
        meta=json_safe(redact(session.meta)),
        **extra,
    )
    return header.to_json()


def event_line(
    event: Event, max_bytes: int = DEFAULT_MAX_EVENT_BYTES, *, redacted: bool = False
) -> str:
    """The event as one JSON line of at most ``max_bytes`` (UTF-8): secrets redacted,
    unserialisable values made safe, an event over the budget cut to fit and marked
    (``data["_truncated"]``). The common case is one ``to_json`` and one fast secret
    pre-check; none with ``redacted`` (a session's pipeline redacted the event already, and
    the line it made of it is reused)."""
    line = remembered_line(event) if redacted else None
    if line is not None:
        return fit_line(event, line, max_bytes)
    try:
        line = event.to_json()
    except ValueError:  # an object JSON cannot hold, or a lone surrogate in a string
        event = event.model_copy(update={"data": json_safe(event.data)})
        line = event.to_json()
    if not redacted:
        clean = event.redacted(line)
        if clean is not event:
            event, line = clean, clean.to_json()
    return fit_line(event, line, max_bytes)


def json_safe(value: Any) -> Any:
    """``value`` with anything JSON cannot hold replaced by its ``str``."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, dict):
        return {str(key): json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(item) for item in value]
    return json_safe(str(value))


# -- reading (the decoder and reader live in ._reading) -------------------------------


def open_session(
    path: Path, hooks: Hooks | None = None, *, strict: bool = False, name: str | None = None
) -> tuple[Iterable[Event], str]:
    """The events of any session file, lazily, and who read it: :data:`OWN_FORMAT` for a
    recording, else the plugin of the first installed reader that recognises the file
    (``hooks``: the active plugin manager's by default). Raises
    :class:`~monologue.errors.UnknownFormat` when no reader does. A recording's bad lines
    are skipped with a warning unless ``strict``; ``name`` is how messages call the file."""
    if looks_like_recording(path):
        return RecordingReader(path, strict=strict, name=name), OWN_FORMAT
    if hooks is None:
        from monologue.plugins._manager import get_plugin_manager

        hooks = get_plugin_manager().hooks
    return hooks.open_session(path)


def parser_for(
    path: Path, *, strict: bool = True, name: str | None = None
) -> RecordingDecoder | None:
    """A line parser to follow a recording as it grows; ``None`` when it is not one."""
    if not looks_like_recording(path):
        return None
    return RecordingDecoder(path, strict=strict, name=name)


def find_recording(target: str) -> Path:
    """A path as given, else the recording of session ``target`` (or a unique id prefix);
    :class:`~monologue.errors.MonologueError` names what could not be found."""
    path = Path(target)
    if path.exists() or path.suffix or "/" in target:
        return path
    from monologue.settings import load_config

    folder = load_config().resolved_record_dir()
    exact = folder / f"{target}.jsonl"
    if exact.exists():
        return exact
    matches = sorted(folder.glob(f"{target}*.jsonl")) if folder.is_dir() else []
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise MonologueError(
            f"no recorded session {target!r} in {folder} (nor a file of that name)"
        )
    names = ", ".join(m.stem for m in matches[:5])
    raise MonologueError(f"{len(matches)} recorded sessions start with {target!r}: {names}...")
