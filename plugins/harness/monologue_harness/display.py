"""The terminal view of a harness run: tasks with their state, narratives as they arrive,
and a progress bar with the tasks done and the current stage (parsing, T002 coding, T002
reviewing...). On a terminal it redraws in place (rich ``Live``); elsewhere (pipes, CI) it
prints one line per narrative and per task outcome.

On a terminal the listener only updates the view's state under a lock: drawing happens on
rich's refresh thread, so neither the harness's loop nor a pipeline thread delivering a
narrative waits on the terminal.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    from monologue import Event

__all__ = ["HarnessDisplay"]

_STYLES = {
    "pending": "dim",
    "running": "yellow",
    "validated": "green",
    "complete": "green",
    "failed": "red",
    "blocked": "magenta",
    "not_run": "dim",
}


class HarnessDisplay:
    """A harness listener: call it with each ``status`` and ``narrative`` event."""

    def __init__(self, console: Console, narratives_shown: int = 8) -> None:
        from rich.live import Live
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self._console = console
        self._lock = threading.Lock()  # the listener's threads and rich's refresh thread
        self._tasks: dict[str, dict[str, str]] = {}
        self._narratives: deque[tuple[str, str]] = deque(maxlen=narratives_shown)
        self._progress = Progress(
            TextColumn("tasks"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.description}"),
            console=console,
        )
        self._bar = self._progress.add_task("starting", total=None)
        self._live = (
            Live(console=console, get_renderable=self._render, refresh_per_second=4)
            if console.is_terminal
            else None
        )

    def __enter__(self) -> HarnessDisplay:
        if self._live is not None:
            self._live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.stop()  # draws the last state once more

    def __call__(self, event: Event) -> None:
        with self._lock:
            if event.type == "narrative":
                self._narrated(event.agent, str(event.data.get("text", "")))
            elif event.type == "status":
                self._status(event.data)

    def _stage(self, text: str) -> None:
        self._progress.update(self._bar, description=text)

    def _narrated(self, agent: str, text: str) -> None:
        self._narratives.append((agent, text))
        if self._live is None:
            self._console.print(f"[bold cyan]{agent}[/]: {text}", highlight=False, soft_wrap=True)

    def _status(self, data: dict[str, Any]) -> None:
        step, task_id, phase = data.get("step"), data.get("task_id"), data.get("phase")
        if step == "phase_started" and phase == "parse":
            self._stage("parsing the tasks file")
        elif step == "phase_finished" and phase == "parse":
            for task in data.get("tasks", []):
                self._tasks[task["id"]] = {"description": task["description"], "state": "pending"}
            self._progress.update(self._bar, total=len(self._tasks))
            self._stage("")
        elif step == "phase_finished" and phase == "tasks":
            self._stage("done")
        elif step == "task_started" and task_id in self._tasks:
            self._tasks[task_id]["state"] = "running"
            self._stage(f"{task_id} coding")
        elif step == "task_coded":
            self._stage(f"{task_id} reviewing (attempt {data.get('attempt')})")
        elif step in ("task_finished", "task_skipped") and task_id in self._tasks:
            state = str(data.get("status"))
            self._tasks[task_id]["state"] = state
            self._progress.advance(self._bar)
            self._stage(f"{task_id} {state}")
            if self._live is None:
                reason = f" ({data['reason']})" if data.get("reason") else ""
                self._console.print(f"{task_id} {state}{reason}", highlight=False, soft_wrap=True)
        elif step == "task_rejected":
            self._stage(f"{task_id} coding again (attempt {int(data.get('attempt', 0)) + 1})")
            if self._live is None:
                self._console.print(
                    f"{task_id} rejected on attempt {data.get('attempt')}; retrying"
                )
        elif step == "dependency_cycle" and self._live is None:
            self._console.print(f"dependency cycle: {' -> '.join(data.get('tasks', []))}")

    def _render(self) -> RenderableType:
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        with self._lock:
            table = Table(box=None, show_header=False, pad_edge=False)
            for task_id, task in self._tasks.items():
                state = task["state"]
                table.add_row(
                    task_id, Text(state, style=_STYLES.get(state, "")), task["description"]
                )
            said = Text()
            for agent, text in self._narratives:
                said.append(f"{agent}: ", style="bold cyan").append(f"{text}\n")
        return Group(table, Text(""), said, self._progress)
