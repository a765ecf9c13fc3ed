"""An instant replay with the template narrator and the default plugin set runs its
narration turns on the session's pipeline thread, submitting none but the final one to the
narrator pool, and says the same narratives, in the same order, covering the same events,
as the same replay with every turn on the narrator pool (the path it replaced, kept for
narrators that do not answer ``narrator_in_place``): on the example sessions, the ../shared
traces when present, and a 3,000-event recording of the benchmark's mix."""

from __future__ import annotations

import sys
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from monologue.events import Event
from monologue.pipeline import _worker
from monologue.pipeline._session import Session
from monologue.plugins._hooks import Hooks
from monologue.replay._replay import Driver, replay

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "tests"))

from test_replay_in_place import counting_pool  # noqa: E402

from benchmarks.bench_replay import record_session  # noqa: E402
from benchmarks.defaults import default_plugins  # noqa: E402

SHARED = ROOT.parent / "shared" / "traces"
READERS = ("claude", "claude_hooks", "openhands", "sweagent", "anthropic", "otel", "check")
"""Beside the default set: the readers of the traces, and the claim checker (its check runs
where the narrator runs)."""


def sources() -> list[Any]:
    found = sorted((ROOT / "examples" / "sessions").glob("*.jsonl"))
    if SHARED.is_dir():
        found += sorted(p for p in SHARED.rglob("*") if p.is_file() and p.suffix != ".md")
    return [pytest.param(p, id=p.name) for p in found] + [pytest.param(None, id="bench-mix")]


class Told:
    """Each narrative's reason, text, and the events it covers by their place in the replay
    (a reader may give the events new ids each time it reads them)."""

    def __init__(self) -> None:
        self.narratives: list[tuple[str, str, list[int]]] = []
        self.places: dict[str, int] = {}

    def event(self, event: Event) -> None:
        self.places[event.id] = len(self.places)

    def narrative(self, narrative: Event, at: datetime) -> None:
        data = narrative.data
        # -1: an event the session made itself (closing's completion), new on every run.
        covers = [self.places.get(event_id, -1) for event_id in data["covers"]]
        self.narratives.append((data["reason"], data["text"], covers))


def told(path: Path, monkeypatch: pytest.MonkeyPatch, *, in_place: bool) -> tuple[Told, Any]:
    """The narratives of an instant replay of ``path``, and the threads and pool calls of its
    narrator turns."""
    threads: list[tuple[str, str]] = []
    pool: list[str] = []
    narrate = Hooks.narrate

    def noting(self: Hooks, *args: Any) -> Any:
        threads.append((threading.current_thread().name, args[-1]))  # the turn's reason
        return narrate(self, *args)

    with monkeypatch.context() as patch:
        patch.setattr(Hooks, "narrate", noting)
        patch.setattr(_worker, "narrator_pool", counting_pool(pool))
        if not in_place:
            patch.setattr(Session, "turns_in_place", lambda self: False)
        view = Told()
        with default_plugins(*READERS):
            summary = replay(Driver(path, view, config={"narrator": "template"}))
        assert summary.problem is None
    return view, (threads, pool)


@pytest.mark.parametrize("source", sources())
def test_turns_in_place_tell_what_turns_on_the_pool_told(
    source: Path | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = source if source is not None else record_session(tmp_path, 3000)
    here, (threads, pool) = told(path, monkeypatch, in_place=True)
    before, (pooled, _) = told(path, monkeypatch, in_place=False)
    assert here.narratives == before.narratives
    assert here.narratives, "nothing was narrated"
    turns = [name for name, reason in threads if reason != "final"]
    assert all(name.startswith("monologue-pipeline-") for name in turns), set(turns)
    assert pool in ([], ["final"])
    assert all(name.startswith("monologue-narrator") for name, _ in pooled)
