"""``monologue watch``: follow a session file while it is written, narrating as it grows.

Only complete lines are parsed (:class:`~monologue.recording.LineTail`), so a line the agent
is still writing waits for its newline. Lines go through a line parser: the core's own for a
monologue recording, else the one the format's plugin offers through the ``line_parser(path)``
hook, an object whose ``feed(line: bytes, lineno: int)`` gives the line's events (the parser
keeps the state a conversation needs between lines; monologue-claude offers one for Claude
Code transcripts and stream-json).

A file is followed by change notifications (watchfiles: inotify, FSEvents...), so a line is
read as soon as it is written, and checked again at least every ``poll_s`` for the time
limits. A stream (standard input, a FIFO) is followed through its
:class:`~._streams.Spool`: waiting for new lines is waiting on the stream, with the same
limits, and its end ends the watch.
A bad line is skipped with a warning naming it, unless ``strict``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from monologue.errors import RecordingError
from monologue.recording import OWN_FORMAT, LineTail, parser_for
from monologue.recording._tail import line_too_long

from ._replay import Driver, ReplaySummary, ReplayView, renamed

if TYPE_CHECKING:
    from monologue.events import Event
    from monologue.lines import LineParser

    from ._streams import Spool

log = logging.getLogger("monologue.watch")


def line_parser(path: Path, strict: bool, name: str) -> tuple[LineParser, str]:
    """The line parser for ``path``, and who reads its format."""
    from monologue.plugins._manager import get_plugin_manager

    own = parser_for(path, strict=strict, name=name)
    if own is not None:
        return own, OWN_FORMAT
    hooks = get_plugin_manager().hooks
    _, reader = hooks.open_session(path)
    parser, _ = hooks.line_parser(path)
    if parser is None:
        raise RecordingError(
            path,
            None,
            f"this file (read by plugin {reader!r}) cannot be followed as it grows: the "
            "plugin offers no line parser for it (a JSON array, say); use monologue replay",
        )
    return parser, reader


@dataclass
class Watch:
    """Follow one file until its session completes, ``timeout_s`` or ``idle_exit_s`` pass,
    or Ctrl-C; :meth:`run` returns the summary, with the problem if a line was bad."""

    path: Path
    """The file followed, and how messages name it (``<stdin>`` for standard input)."""
    view: ReplayView
    poll_s: float = 0.2
    timeout_s: float | None = None
    idle_exit_s: float | None = None
    config: dict[str, Any] = field(default_factory=dict)
    strict: bool = False
    spool: Spool | None = None
    """The stream being followed, when :attr:`path` is not a file."""
    on_wait: Callable[[], None] = lambda: None
    """Called once when a stream has sent nothing for a second."""
    sleep: Callable[[float], None] | None = None
    """How to wait for a file to grow, at most the given seconds: by default until it
    changes (watchfiles); a test passes its own."""
    clock: Callable[[], float] = time.monotonic
    skipped: int = field(default=0, init=False)

    @property
    def source(self) -> Path:
        return self.spool.path if self.spool is not None else self.path

    def run(self) -> ReplaySummary:
        # Each event is shown (and narrated) as it arrives (Driver.feed).
        driver = Driver(self.path, self.view, config=self.config)
        parser: LineParser | None = None
        reader: str | None = None
        problem: str | None = None
        try:
            for lineno, line in self.lines(stop=lambda: driver.held is not None):
                if parser is None:
                    parser, reader = line_parser(self.source, self.strict, str(self.path))
                for event in self._feed(parser, reader == OWN_FORMAT, line, lineno):
                    driver.feed(event, getattr(parser, "agent", None))
        except RecordingError as exc:
            problem = renamed(exc, self.source, self.path)
        except KeyboardInterrupt:
            log.debug("watch of %s interrupted", self.path)
        finally:
            driver.close()
        skipped = self.skipped + getattr(parser, "skipped", 0)
        return driver.summary(format=reader, problem=problem, skipped_lines=skipped)

    def _feed(self, parser: LineParser, own: bool, line: bytes, lineno: int) -> list[Event]:
        """The line's events; a plugin parser's bad line is skipped unless strict (the
        core's own parser skips by itself, and raises only what cannot be skipped)."""
        try:
            return parser.feed(line, lineno)
        except RecordingError as exc:
            if own or self.strict:
                raise
            self._skip(lineno, exc.problem)
            return []

    def _skip(self, lineno: int, problem: str) -> None:
        self.skipped += 1
        log.warning("%s:%d: %s; skipped (--strict makes this an error)", self.path, lineno, problem)

    def _skip_long(self, lineno: int) -> None:
        if self.strict:
            raise RecordingError(self.path, lineno, line_too_long())
        self._skip(lineno, line_too_long())

    @contextmanager
    def _waiting(self) -> Iterator[Callable[[float], None]]:
        """A wait for the followed file to change, at most ``poll_s`` each time."""
        if self.sleep is not None or self.spool is not None:
            yield self.sleep or time.sleep
            return
        # The Rust backend itself, not watchfiles.watch(): that generator starts watching at
        # its first next(), after the file was read to its end, so a line written between the
        # two waited for the timeout. RustNotify watches from its construction, here, before
        # the first read, and keeps the changes that come between two waits.
        from watchfiles._rust_notify import RustNotify

        notify = RustNotify(
            watch_paths=[str(self.source)],
            debug=False,
            force_polling=False,
            poll_delay_ms=300,  # (read only when polling)
            recursive=False,
            ignore_permission_denied=False,
        )
        timeout_ms = max(1, round(self.poll_s * 1000))

        def wait(_seconds: float) -> None:
            # A change (a burst of writes within 50 ms is one wake-up), or the timeout.
            answer = notify.watch(
                debounce_ms=50, step_ms=10, timeout_ms=timeout_ms, stop_event=None
            )
            if answer == "signal":
                raise KeyboardInterrupt  # Ctrl-C while waiting: the run stops cleanly

        try:
            yield wait
        finally:
            notify.close()

    def lines(self, stop: Callable[[], bool]) -> Iterator[tuple[int, bytes]]:
        """Complete lines as they are appended, until ``stop()``, a time limit or the end of
        a stream."""
        started = last_growth = self.clock()
        spool = self.spool
        waited = False
        with (
            LineTail(self.source, skip_long=self._skip_long) as tail,
            self._waiting() as wait,
        ):
            while not stop():
                lines = tail.read()
                if lines:
                    last_growth = self.clock()
                    for numbered in lines:
                        if stop():
                            break
                        yield numbered
                    continue
                if spool is not None and spool.ended:
                    if tail.partial.strip() and not stop():
                        yield tail.lineno + 1, tail.partial  # the stream ended without one
                    return
                now = self.clock()
                if self.timeout_s is not None and now - started >= self.timeout_s:
                    break
                if self.idle_exit_s is not None and now - last_growth >= self.idle_exit_s:
                    break
                if spool is None:
                    wait(self.poll_s)
                elif not (spool.pump(self.poll_s) or spool.received or waited):
                    waited = now - started >= 1
                    if waited:
                        self.on_wait()
            if tail.partial.strip() and not stop():
                log.warning(
                    "%s:%d: the last line has no newline yet; not read", self.path, tail.lineno + 1
                )
