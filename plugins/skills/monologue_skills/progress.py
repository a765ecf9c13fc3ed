"""The progress of a plan run by ``monologue skills plan``: a bar on a terminal (actions done
of all, and the ones running now), nothing when standard error is piped.

Updating the bar only sets numbers under rich's lock; drawing happens on rich's own refresh
thread, so neither the plan's thread nor an action's waits on the terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

    from .executor import PlanProgress

__all__ = ["PlanBar"]


class PlanBar:
    """``run_plan``'s ``on_progress``, and where the run's narratives are printed (above the
    bar on a terminal, a plain line on standard error elsewhere). Use it as ``with``."""

    def __init__(self, console: Console | None = None) -> None:
        from rich.console import Console

        self.console = console or Console(stderr=True)
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        if self.console.is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self._progress = Progress(
                TextColumn("plan"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.description}"),
                console=self.console,
            )
            self._task = self._progress.add_task("", total=None)

    def __enter__(self) -> PlanBar:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()

    def __call__(self, step: PlanProgress) -> None:
        if self._progress is None or self._task is None:
            return
        running = f"running {', '.join(step.running)}" if step.running else ""
        self._progress.update(
            self._task, completed=step.done, total=step.total, description=running
        )

    def say(self, text: str) -> None:
        """Print a narrative."""
        if self._progress is None:
            click.echo(text, err=True)
        else:
            self.console.print(text, markup=False, highlight=False, soft_wrap=True)
