"""The one documented exception to "the agent's thread only stamps and enqueues": with the
recorder's ``always`` durability, emit waits until its event's line is written, yet no hook
runs on the emitting thread (the rest of that proof is ``tests/test_pipeline_threads.py``;
this one needs the recorder installed)."""

from __future__ import annotations

import threading
from collections import defaultdict
from pathlib import Path

from pytest_monologue import PluginSandbox

from monologue import hookimpl


class HookThreads:
    """Notes the thread of every call of the hooks the recorder implements."""

    def __init__(self) -> None:
        self.threads: dict[str, set[int]] = defaultdict(set)

    @hookimpl
    def on_session_start(self) -> None:
        self.threads["on_session_start"].add(threading.get_ident())

    @hookimpl
    def on_event(self) -> None:
        self.threads["on_event"].add(threading.get_ident())

    @hookimpl
    def on_complete(self) -> None:
        self.threads["on_complete"].add(threading.get_ident())


def test_durability_always_waits_for_the_write_yet_runs_no_hook_on_the_emitter(
    monologue_plugins: PluginSandbox, tmp_path: Path
) -> None:
    monologue_plugins.load("recorder")
    threads = monologue_plugins.register(HookThreads(), "threads")
    with monologue_plugins.session(
        "coder", narrator="none", durability="always", record_dir=tmp_path
    ) as s:
        assert s.sync_writes
        path = tmp_path / f"{s.id}.jsonl"
        for n in range(5):
            s.text(f"event {n}")
            # The documented exception: emit returned once its line was written.
            assert len(path.read_text().splitlines()) == n + 2
    emitter = threading.get_ident()
    for hook in ("on_session_start", "on_event", "on_complete"):
        assert threads.threads[hook], f"{hook} never ran: the test would prove nothing"
        assert emitter not in threads.threads[hook], f"{hook} ran on the emitting thread"
