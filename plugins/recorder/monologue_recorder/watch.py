"""``monologue watch``: follow a session file while it is written, narrating as it grows.

The file is read from where the last read stopped; only complete lines are parsed, so a line
the agent is still writing waits for its newline. Lines go through the line parser of the
format's plugin, from the ``line_parser(path)`` hook: an object whose ``feed(line: bytes,
lineno: int)`` gives the line's events (the parser keeps the state a conversation needs
between lines). This plugin offers one for its recordings and monologue-claude for Claude
Code transcripts and stream-json.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from monologue.errors import RecordingError
from monologue.lines import MAX_LINE_BYTES, LineParser

from .reading import line_too_long
from .replay import Driver, ReplaySummary, ReplayView, open_session

if TYPE_CHECKING:
    pass

log = logging.getLogger("monologue.recorder")

CHUNK_BYTES: Final = 1 << 16


def line_parser(path: Path) -> tuple[LineParser, str]:
    """The line parser of the plugin that reads ``path``, and that plugin's name."""
    from monologue.plugins import get_plugin_manager

    manager = get_plugin_manager()
    _, reader = open_session(path, manager.hooks)
    parser, _ = manager.hooks.line_parser(path)
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
    view: ReplayView
    poll_s: float = 0.2
    timeout_s: float | None = None
    idle_exit_s: float | None = None
    config: dict[str, Any] = field(default_factory=dict)
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic

    def run(self) -> ReplaySummary:
        driver = Driver(self.path, self.view, config=self.config)
        parser: LineParser | None = None
        reader: str | None = None
        problem: str | None = None
        try:
            for lineno, line in self.lines(stop=lambda: driver.held is not None):
                if parser is None:
                    parser, reader = line_parser(self.path)
                for event in parser.feed(line, lineno):
                    driver.feed(event, getattr(parser, "agent", None))
        except RecordingError as exc:
            problem = str(exc)
        except KeyboardInterrupt:
            log.debug("watch of %s interrupted", self.path)
        finally:
            driver.close()
        return driver.summary(format=reader, problem=problem)

    def lines(self, stop: Callable[[], bool]) -> Iterator[tuple[int, bytes]]:
        """Complete lines as they are appended, until ``stop()`` or a time limit."""
        started = last_growth = self.clock()
        buffer = bytearray()
        lineno = 0
        with self.path.open("rb") as stream:
            while not stop():
                chunk = stream.read(CHUNK_BYTES)
                if chunk:
                    last_growth = self.clock()
                    buffer += chunk
                    start = 0
                    while (end := buffer.find(b"\n", start)) >= 0 and not stop():
                        lineno += 1
                        yield lineno, bytes(buffer[start : end + 1])
                        start = end + 1
                    del buffer[:start]
                    if len(buffer) > MAX_LINE_BYTES:
                        raise RecordingError(self.path, lineno + 1, line_too_long())
                    continue
                now = self.clock()
                if self.timeout_s is not None and now - started >= self.timeout_s:
                    break
                if self.idle_exit_s is not None and now - last_growth >= self.idle_exit_s:
                    break
                try:
                    shrank = self.path.stat().st_size < stream.tell()
                except OSError as exc:
                    raise RecordingError(self.path, None, f"cannot watch: {exc.strerror}") from None
                if shrank:
                    raise RecordingError(self.path, None, "the file shrank while being watched")
                self.sleep(self.poll_s)
        if buffer.strip() and not stop():
            log.warning("%s:%d: the last line has no newline yet; not read", self.path, lineno + 1)
