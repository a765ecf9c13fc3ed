"""What the recorder does with a session: settings, the header, one redacted line per event.

Each recorded session has a :class:`~monologue_recorder.writer.RecordingFile` in
``session.state["recorder"]``; the hooks only look it up, so a session that is not recorded
(a replay, ``record = false``, a file that could not be created) costs one dict lookup.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from monologue.errors import ConfigError
from monologue.redact import may_contain_secret, redact

from .writer import DEFAULT_POLICY, PLUGIN, POLICIES, Policy, RecordingFile

if TYPE_CHECKING:
    from monologue.config import MonologueConfig
    from monologue.events import Event
    from monologue.sessions import Session

log = logging.getLogger("monologue.recorder")

STATE_KEY: Final = "recorder"
MAX_EVENT_CHARS: Final = 1 << 20
"""Events longer than this on one line have their long strings cut (see ``LONG_STRING``)."""
LONG_STRING: Final = 64 << 10
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def policy_for(config: MonologueConfig) -> Policy:
    """The ``durability`` setting, validated."""
    value = config.option("durability", DEFAULT_POLICY)
    policy = POLICIES.get(str(value).strip().lower())
    if policy is None:
        raise ConfigError(
            f"durability = {value!r} ({PLUGIN} setting): must be one of {', '.join(POLICIES)}"
        )
    return policy


def record_setting(config: MonologueConfig) -> bool | None:
    """The ``record`` setting: ``None`` (unset: live sessions yes, replays no), True, False."""
    value = config.option("record")
    if value is None or isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ConfigError(f"record = {value!r} ({PLUGIN} setting): must be true or false")


def wants_recording(session: Session) -> bool:
    """Live sessions are recorded; replays only when ``record`` is explicitly true."""
    setting = record_setting(session.config)
    if setting is None:
        return "replay_of" not in session.meta
    return setting


def recording_path(session: Session) -> Path:
    return session.config.resolved_record_dir() / f"{session.id}.jsonl"


def start(session: Session) -> None:
    """Open the session's recording and write its header (``on_session_start``)."""
    try:
        if not wants_recording(session):
            return
        policy = policy_for(session.config)
    except ConfigError as exc:
        log.error("%s: %s; session %s is not recorded", PLUGIN, exc, session.id)
        return
    file = RecordingFile(recording_path(session), policy)
    if file.open(header_line(session)):
        session.state[STATE_KEY] = file


def record(session: Session, event: Event) -> None:
    """Append one event (``on_event``); called from the agent's and the worker's threads."""
    file: RecordingFile | None = session.state.get(STATE_KEY)
    if file is not None:
        file.append(event_line(event))


def finish(session: Session) -> None:
    """Write what waits, fsync per the policy, close (``on_complete``)."""
    file: RecordingFile | None = session.state.pop(STATE_KEY, None)
    if file is not None:
        file.close()


def header_line(session: Session) -> str:
    from monologue.events import RecordingHeader, utcnow

    extra: dict[str, Any] = {"task_id": session.task_id} if session.task_id else {}
    header = RecordingHeader(
        session_id=session.id,
        agent=session.agent,
        started_at=session.started_at or utcnow(),
        meta=json_safe(redact(session.meta)),
        **extra,
    )
    return header.to_json()


def event_line(event: Event) -> str:
    """The event as one JSON line: secrets redacted, unserialisable values and huge strings
    made safe. The common case is one ``model_dump_json`` and one fast secret pre-check."""
    try:
        line = event.model_dump_json()
    except ValueError:  # an object JSON cannot hold, or a lone surrogate in a string
        event = event.model_copy(update={"data": json_safe(event.data)})
        line = event.model_dump_json()
    # Only the payload can hold secrets (it is the last field): checking it alone halves the
    # cost of the pre-check, which most lines pass.
    if may_contain_secret(line[line.find(',"data":') :]):
        clean = redact(event.data)
        if clean != event.data:
            event = event.model_copy(update={"data": clean})
            line = event.model_dump_json()
    if len(line) > MAX_EVENT_CHARS:
        line = event.model_copy(update={"data": shorten(event.data)}).model_dump_json()
    return line


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


def shorten(value: Any) -> Any:
    """``value`` with every string longer than ``LONG_STRING`` cut, saying how much went."""
    from monologue.digest import truncate

    if isinstance(value, str):
        return truncate(value, LONG_STRING) if len(value) > LONG_STRING else value
    if isinstance(value, dict):
        return {key: shorten(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shorten(item) for item in value]
    return value
