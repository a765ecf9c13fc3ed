"""The ``monologue`` command with a deterministic narrator, for tests that run it as a real
process: each narrative repeats the gist of the events it covers ("I saw: tool_call Read
file_path=client.py; ..."), so a test can tell which lines were narrated.

    python echo_narrator.py watch FILE --idle-exit 2
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from monologue import hookimpl

if TYPE_CHECKING:
    from monologue.events import Event


class EchoNarrator:
    @hookimpl
    def narrate(self, events: list[Event]) -> str:
        from monologue.events import summarize_data

        return "I saw: " + "; ".join(
            f"{event.type} {summarize_data(event.type, event.data)}" for event in events
        )


if __name__ == "__main__":
    import signal

    # Started from a background job (`scripts/test &`, nohup, some CI runners), a process
    # inherits SIGINT ignored; the tests' Ctrl-C must reach it as a user's would.
    signal.signal(signal.SIGINT, signal.default_int_handler)

    from monologue.cli import main
    from monologue.plugins import get_plugin_manager

    get_plugin_manager().register(EchoNarrator(), "echo")
    os.environ.setdefault("MONOLOGUE_NARRATOR", "echo")
    main(sys.argv[1:])
