"""``monologue log``: print everything in a recorded session (found by
:func:`monologue.recording.find_recording`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from monologue.errors import MonologueError, RecordingError

if TYPE_CHECKING:
    from monologue.events import Event


def has_own_time(event: Event) -> bool:
    """Whether the source gave the event its time (a reader leaves ``ts`` unset, to its
    default of the reading's clock, when the format records none)."""
    return "ts" in event.model_fields_set


def print_log(path: Path, *, as_json: bool, strict: bool = False, name: Path | None = None) -> None:
    """Every event of the session at ``path`` (named ``name`` in messages), narratives
    highlighted, then what the narration cost; any format a reader knows.

    Narration events are shown at the recorded time of the last event they cover (or the
    last event before them), never at the wall-clock time of their delivery: the times
    of a log are all the session's own. A bad line is skipped with a warning, or with
    ``strict`` raises :class:`~monologue.errors.RecordingError` after the events before it
    were printed."""
    from monologue.recording import OWN_FORMAT, open_session, read_header

    from ._cost import NarrationCost
    from ._render import make_view
    from ._replay import NARRATION_TYPES, SessionTimes, renamed

    name = name or path
    view = make_view(as_json=as_json, show_events=True)
    times = SessionTimes()
    cost = NarrationCost()
    try:
        source, reader = open_session(path, strict=strict, name=str(name))
        if reader == OWN_FORMAT:
            header = read_header(path)
            view.untimed = bool(header.meta.get("untimed"))
            view.header(header)
        for event in source:
            if reader != OWN_FORMAT and not times.last:
                view.untimed = not has_own_time(event)
            if event.type not in NARRATION_TYPES:
                times.saw(event)
                view.event(event)
                continue
            cost.add(event)
            if event.type == "narrative":
                view.narrative(event, times.of(event))
            else:
                view.event(event, at=times.of(event))
    except RecordingError as exc:
        raise MonologueError(renamed(exc, path, name)) from None
    finally:
        view.close()
    view.cost(cost)
