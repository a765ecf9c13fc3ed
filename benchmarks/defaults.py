"""The default plugin set, loaded through real entry points into a private plugin manager."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from monologue.plugins import MonologuePluginManager, use_plugin_manager

DEFAULT_SET = ("buffer", "template", "recorder", "gate")
"""What a user gets from the README's install: the policy, the offline narrator, the
recorder (batch durability) and the gate (assist mode)."""


@contextmanager
def default_plugins(
    *extra: str, only: tuple[str, ...] = DEFAULT_SET
) -> Iterator[MonologuePluginManager]:
    manager = MonologuePluginManager()
    manager.load_entrypoints({"MONOLOGUE_LOAD_PLUGINS": ",".join((*only, *extra))})
    missing = set((*only, *extra)) - {name for name, _ in manager.list_name_plugin()}
    if missing:
        raise RuntimeError(f"benchmark needs plugins that are not installed: {sorted(missing)}")
    with use_plugin_manager(manager):
        yield manager


def agent_events(session: object, count: int, *, fail_every: int = 0, offset: int = 0) -> None:
    """A realistic mix: read, search, edit, run tests, with results, and some agent text;
    with ``fail_every``, 1 tool call in that many fails. ``offset`` continues a mix begun
    earlier (tool use ids stay unique)."""
    from monologue import Session

    assert isinstance(session, Session)
    tools = [
        ("Read", {"file_path": "src/client.py"}, "def fetch(url):\n    for attempt in range(3):\n"),
        ("Grep", {"pattern": "retry", "path": "src"}, "src/client.py:12: for attempt in range(3)"),
        (
            "Edit",
            {"file_path": "src/client.py", "old_string": "3", "new_string": "cfg.retries"},
            "ok",
        ),
        ("Bash", {"command": "pytest -q"}, "41 passed in 1.20s"),
    ]
    emitted = 0
    i = offset
    while emitted < count:
        name, tool_input, output = tools[i % len(tools)]
        call = session.tool_call(name, tool_input, tool_use_id=f"toolu_{i}")
        if fail_every and i % fail_every == fail_every - 1:
            session.tool_result(call.data["tool_use_id"], "Error: exit status 1", True)
        else:
            session.tool_result(call.data["tool_use_id"], output)
        emitted += 2
        if i % 5 == 4 and emitted < count:
            session.text("That part is done; moving on to the next file.")
            emitted += 1
        i += 1


def scratch_config(tmp: Path) -> dict[str, Any]:
    """Session settings that keep every file a benchmark writes inside ``tmp``."""
    return {"record_dir": tmp / "sessions", "data_dir": tmp / "data"}
