"""What the recorder does with a session: its settings, then the header and one line per
event, as :mod:`monologue.recording` writes them.

Each recorded session has a :class:`~monologue_recorder.writer.RecordingFile` in
``session.state["recorder"]``; the hooks only look it up, so a session that is not recorded
(a replay, ``record = false``, a file that could not be created) costs one dict lookup.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Final

from monologue.recording import header_line, max_event_bytes, record_setting, recording_path

from .writer import POLICIES, Policy, RecordingFile

if TYPE_CHECKING:
    from monologue import Session
    from monologue.events import Event
    from monologue.settings import MonologueConfig

log = logging.getLogger("monologue.recorder")

STATE_KEY: Final = "recorder"


def policy_for(config: MonologueConfig) -> Policy:
    """The ``durability`` setting's policy."""
    from .settings import RecorderSettings

    return POLICIES[config.settings(RecorderSettings).durability]


def wants_recording(session: Session) -> bool:
    """Live sessions are recorded; replays only when ``record`` is explicitly true."""
    setting = record_setting(session.config)
    if setting is None:
        return "replay_of" not in session.meta
    return setting


def start(session: Session) -> None:
    """Open the session's recording and write its header (``on_session_start``)."""
    if not wants_recording(session):
        return
    policy = policy_for(session.config)
    budget = max_event_bytes(session.config)
    file = RecordingFile(recording_path(session.config, session.id), policy, budget)
    if file.open(header_line(session)):
        session.state[STATE_KEY] = file
        if policy.window_s is not None:
            # The window bounds how long a line waits while events keep coming; once the
            # pipeline has caught up, waiting longer only delays readers (the viewer).
            session.when_idle(file.flush)
        # `always` promises an event is on disk when emit returns: the one case where the
        # agent's thread waits for the pipeline (see Session.sync_writes).
        session.sync_writes = policy.fsync_each


def record(session: Session, event: Event) -> None:
    """Append one event (``on_event``, on the session's pipeline thread)."""
    file: RecordingFile | None = session.state.get(STATE_KEY)
    if file is not None:
        file.append_event(event)


def finish(session: Session) -> None:
    """Write what waits, fsync per the policy, close (``on_complete``)."""
    file: RecordingFile | None = session.state.pop(STATE_KEY, None)
    if file is not None:
        file.close()
