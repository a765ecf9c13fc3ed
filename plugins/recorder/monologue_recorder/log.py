"""``monologue log``: find a recorded session and print everything in it."""

from __future__ import annotations

from pathlib import Path

from .commands import fail


def resolve(target: str) -> Path:
    """A path as given, else the recording of session ``target`` (or a unique id prefix)."""
    path = Path(target)
    if path.exists() or path.suffix or "/" in target:
        return path
    from monologue.config import load_config

    folder = load_config().resolved_record_dir()
    exact = folder / f"{target}.jsonl"
    if exact.exists():
        return exact
    matches = sorted(folder.glob(f"{target}*.jsonl")) if folder.is_dir() else []
    if len(matches) == 1:
        return matches[0]
    if not matches:
        fail(f"no recorded session {target!r} in {folder} (nor a file of that name)")
    names = ", ".join(m.stem for m in matches[:5])
    fail(f"{len(matches)} recorded sessions start with {target!r}: {names}...")


def print_log(path: Path, *, as_json: bool) -> None:
    """Every event of the session at ``path``, narratives highlighted; any format a plugin
    reads. A bad line is reported after the events before it."""
    from monologue.errors import RecordingError
    from monologue.plugins import get_plugin_manager

    from .reading import read_header
    from .render import make_view
    from .replay import open_session

    view = make_view(as_json=as_json, show_events=True)
    try:
        source, reader = open_session(path, get_plugin_manager().hooks)
        if reader == "recorder":
            view.header(read_header(path))
        for event in source:
            if event.type == "narrative":
                view.narrative(event, event.ts)
            else:
                view.event(event)
    except RecordingError as exc:
        view.close()
        fail(str(exc))
    view.close()
