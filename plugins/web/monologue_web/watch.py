"""Change notices for the record folder: one inotify watch (watchfiles) for every client.

One thread per server runs :func:`watchfiles.watch` on the folder and hands each batch of
changed paths to the event loop, which wakes the streams following those files (and the
sessions lists, which follow the whole folder). Clients hold no thread and no watch of
their own, so 200 open streams cost 200 :class:`asyncio.Event` objects.

A notice only says "read again"; every stream also re-reads after ``recheck_s`` without one,
so a lost notice (or a filesystem without inotify) delays an event, never loses it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

__all__ = ["FolderWatch"]

log = logging.getLogger("monologue.web")

# watchfiles hands over a batch once no change came for STEP_MS, and at the latest DEBOUNCE_MS
# after the first: a file written every few milliseconds still reaches the page promptly.
STEP_MS: Final = 10
DEBOUNCE_MS: Final = 40


class FolderWatch:
    """Who waits for which file of ``folder`` (a resolved path), and the thread telling them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._waiting: dict[Path | None, set[asyncio.Event]] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        """Start watching (from the event loop that the notices are for)."""
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._run, name="monologue-web-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @contextmanager
    def notices(self, path: Path | None) -> Iterator[asyncio.Event]:
        """An event set whenever ``path`` changes (any file of the folder when ``None``);
        clear it before reading, so a change during the read is not missed."""
        changed = asyncio.Event()
        self._waiting.setdefault(path, set()).add(changed)
        try:
            yield changed
        finally:
            waiting = self._waiting.get(path)
            if waiting is not None:
                waiting.discard(changed)
                if not waiting:
                    del self._waiting[path]

    def _run(self) -> None:
        from watchfiles import watch

        try:
            for changes in watch(
                self.folder,
                watch_filter=None,
                step=STEP_MS,
                debounce=DEBOUNCE_MS,
                stop_event=self._stop,
                recursive=False,
                raise_interrupt=False,
            ):
                paths = {self.folder / Path(changed).name for _, changed in changes}
                assert self._loop is not None
                try:
                    self._loop.call_soon_threadsafe(self._notify, paths)
                except RuntimeError:  # the loop closed first: the server is stopping
                    return
        except Exception as exc:  # an inotify limit, the folder removed: re-reads go on
            if not self._stop.is_set():
                log.warning(
                    "cannot watch %s for changes (%s); the page updates every few seconds",
                    self.folder,
                    exc,
                )

    def _notify(self, paths: set[Path]) -> None:
        for path in [*paths, None]:
            for changed in self._waiting.get(path, ()):
                changed.set()
