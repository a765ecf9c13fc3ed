"""How replay, watch and log show a session: rich on a terminal, plain text in a pipe, JSON.

One line per narrative with its time and agent; a ``chapter`` event as a heading; events
(``--show-events``) dimmed. Narratives
arrive from the narration thread while events come from the reading thread, so every view
writes whole lines under a lock.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from datetime import datetime
from typing import IO, TYPE_CHECKING, Any, Final, Literal

import click
from pydantic import BaseModel

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

    from monologue.events import Event, RecordingHeader

    from ._cost import NarrationCost
    from ._replay import ReplaySummary


def clock(ts: datetime) -> str:
    """``HH:MM:SS`` in local time."""
    return ts.astimezone().strftime("%H:%M:%S")


def describe_event(event: Event) -> str:
    """``tool_call Read file_path=client.py``: the type and a one-line gist of the payload."""
    from monologue.events import summarize_data

    if event.type == "completion":
        failed = " (failed)" if event.data.get("is_error") else ""
        result = event.data.get("result")
        gist = summarize_data("text", {"text": str(result)}) if result is not None else ""
        return f"completion{failed} {gist}".rstrip()
    return f"{event.type} {summarize_data(event.type, event.data)}".rstrip()


_PROGRESS_EVERY: Final = 64
"""Events between two updates of the progress bar (an update takes a lock and a clock)."""

UNTIMED: Final = "--:--:--"
"""Shown for the time of an event whose source recorded none (no invented clock)."""


def describe_chapter(event: Event) -> str | None:
    """``## Title: summary`` for a ``chapter`` event, else None."""
    if event.type != "chapter" or not event.data.get("title"):
        return None
    summary = event.data.get("summary")
    return f"## {event.data['title']}" + (f": {summary}" if summary else "")


def describe_header(header: RecordingHeader) -> str:
    """``session ID of AGENT, started WHEN``, then what the session replayed, if anything."""
    meta = dict(header.meta)
    text = f"session {header.session_id} of {header.agent}"
    if meta.pop("untimed", False):
        text += ", source without timestamps"
    else:
        text += f", started {header.started_at.astimezone().strftime('%Y-%m-%d %H:%M:%S %Z')}"
    replayed, source = meta.pop("replay_of", None), meta.pop("source_format", None)
    if replayed:
        text += f"; replay of {replayed}" + (f" ({source})" if source else "")
    extra = ", ".join(f"{key}: {value}" for key, value in meta.items())
    return text + (f"; {extra}" if extra else "")


def describe_summary(summary: ReplaySummary) -> str:
    parts = [
        plural(summary.events, "event"),
        plural(summary.tool_calls, "tool call"),
        plural(summary.narratives, "narrative"),
    ]
    if summary.tool_errors or summary.errors:
        parts.append(plural(summary.tool_errors + summary.errors, "error"))
    if summary.narrator_failures:
        parts.append(plural(summary.narrator_failures, "narrator failure"))
    if summary.skipped_lines:
        parts.append(plural(summary.skipped_lines, "bad line") + " skipped")
    cost = summary.narration.describe()
    return ", ".join(parts) + (f"; {cost}" if cost else "")


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


class NarrativeLine(BaseModel):
    """One narrative in ``--json`` output."""

    kind: Literal["narrative"] = "narrative"
    ts: datetime
    """When, in the session's own time: the last event the narrative follows."""
    agent: str
    text: str
    narrator: str | None = None
    model: str | None = None
    reason: str | None = None


class EventLine(BaseModel):
    """One event in ``--json`` output (with ``--show-events``, and in ``log --json``)."""

    kind: Literal["event"] = "event"
    event: dict[str, Any]
    at: datetime | None = None
    """For narration events in ``log``: the recorded time of what they are about (their
    ``ts`` is when they were delivered)."""


class CostLine(BaseModel):
    """The last line of ``log --json``: what the session's narration cost."""

    kind: Literal["narration"] = "narration"
    narration: dict[str, Any]


class HeaderLine(BaseModel):
    """A recording's header in ``log --json`` output."""

    kind: Literal["header"] = "header"
    header: dict[str, Any]


class TextView:
    """Plain lines through click (a pipe, a file)."""

    untimed = False
    """The source has no timestamps: times are shown as ``--:--:--``, not invented."""

    def __init__(self, show_events: bool = False) -> None:
        self.show_events = show_events
        self._lock = threading.Lock()

    def _clock(self, ts: datetime) -> str:
        return UNTIMED if self.untimed else clock(ts)

    def _echo(self, text: str, err: bool = False) -> None:
        with self._lock:
            click.echo(text, err=err)

    def header(self, header: RecordingHeader) -> None:
        self._echo(describe_header(header))

    def event(self, event: Event, at: datetime | None = None) -> None:
        if (heading := describe_chapter(event)) is not None:
            self._echo(heading)
        elif self.show_events:
            self._echo(f"  {self._clock(at or event.ts)} {event.agent}  {describe_event(event)}")

    def narrative(self, narrative: Event, at: datetime) -> None:
        self._echo(f"{self._clock(at)} {narrative.agent}: {narrative.text}")

    def summary(self, summary: ReplaySummary) -> None:
        self._echo(describe_summary(summary), err=True)

    def cost(self, cost: NarrationCost) -> None:
        """What a logged session's narration cost (nothing when it made no request)."""
        if cost.requests:
            self._echo(cost.describe())

    def close(self) -> None:
        """Nothing to tear down for plain text."""


class JsonView(TextView):
    """JSON lines: narratives, events with ``--show-events``, and a summary at the end."""

    def header(self, header: RecordingHeader) -> None:
        self._echo(HeaderLine(header=header.model_dump(mode="json")).model_dump_json())

    def event(self, event: Event, at: datetime | None = None) -> None:
        if self.show_events:
            line = EventLine(event=event.model_dump(mode="json"), at=at)
            self._echo(line.model_dump_json(exclude=None if at else {"at"}))

    def narrative(self, narrative: Event, at: datetime) -> None:
        data = narrative.data
        line = NarrativeLine(
            ts=at,
            agent=narrative.agent,
            text=narrative.text,
            narrator=data.get("narrator"),
            model=data.get("model"),
            reason=data.get("reason"),
        )
        self._echo(line.model_dump_json())

    def summary(self, summary: ReplaySummary) -> None:
        self._echo(summary.model_dump_json())

    def cost(self, cost: NarrationCost) -> None:
        self._echo(CostLine(narration=cost.model_dump()).model_dump_json())


class RichView:
    """A terminal: colours, dimmed events, and a progress bar for long instant replays."""

    untimed = False
    """The source has no timestamps: times are shown as ``--:--:--``, not invented."""

    def __init__(
        self,
        show_events: bool = False,
        console: Console | None = None,
        errors: Console | None = None,
    ) -> None:
        from rich.console import Console

        self.show_events = show_events
        self.console = console or Console(highlight=False)
        self.errors = errors or Console(stderr=True, highlight=False)
        """Where the summary goes: like the plain view, off the narration's stream."""
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._position: Callable[[], int] | None = None
        self._events = 0

    def start_progress(self, total: int | None, position: Callable[[], int] | None) -> None:
        """Show a progress bar: ``position()`` of ``total`` bytes read (a pulsing bar and
        the events counted, when the reader cannot tell its position)."""
        from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

        self._progress = Progress(
            TextColumn("replaying"),
            BarColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[events]:,} events"),
            console=self.console,
            transient=True,
        )
        self._position = position
        self._task = self._progress.add_task(
            "replay", total=total if position is not None else None, events=0
        )
        self._progress.start()

    def header(self, header: RecordingHeader) -> None:
        self.console.print(describe_header(header), style="bold", markup=False)

    def event(self, event: Event, at: datetime | None = None) -> None:
        if self._progress is not None and self._task is not None:
            self._events += 1
            if self._events % _PROGRESS_EVERY == 1:
                position = self._position() if self._position is not None else None
                self._progress.update(self._task, completed=position, events=self._events)
        if (heading := describe_chapter(event)) is not None:
            self.console.print(heading, style="bold magenta", markup=False)
        elif self.show_events:
            from rich.text import Text

            when = UNTIMED if self.untimed else clock(at or event.ts)
            line = Text(f"  {when} {event.agent}  {describe_event(event)}")
            line.stylize("dim")
            self.console.print(line, overflow="ellipsis", no_wrap=True)

    def narrative(self, narrative: Event, at: datetime) -> None:
        from rich.text import Text

        line = Text.assemble(
            (UNTIMED if self.untimed else clock(at), "dim"),
            " ",
            (narrative.agent, "bold cyan"),
            " ",
            narrative.text,
        )
        self.console.print(line)

    def summary(self, summary: ReplaySummary) -> None:
        self.close()
        self.errors.print(describe_summary(summary), style="dim", highlight=False)

    def cost(self, cost: NarrationCost) -> None:
        if cost.requests:
            self.console.print(cost.describe(), style="dim", markup=False)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


View = TextView | RichView


def make_view(*, as_json: bool, show_events: bool, stream: IO[str] | None = None) -> View:
    """JSON when asked, rich on a terminal, plain text otherwise."""
    if as_json:
        return JsonView(show_events)
    if (stream or sys.stdout).isatty():
        return RichView(show_events)
    return TextView(show_events)
