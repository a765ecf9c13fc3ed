"""Speaking chapter titles and narratives aloud, never falling behind and never overlapping.

One thread speaks one item at a time. An item still waiting :attr:`SpeechQueue.max_age_s`
after it was queued is dropped: stale speech is worse than none. :meth:`SpeechQueue.cut`
(a new user prompt) stops what is being said and drops what waits. The voice is the
``speak`` skill's: espeak-ng on Linux, ``say`` on macOS, or a configured command that gets
the text as its last argument.
"""

from __future__ import annotations

import logging
import shlex
import shutil
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path

__all__ = ["SpeechQueue", "speak_command"]

log = logging.getLogger("monologue.claude_hooks")

MAX_WAITING = 32
"""Items queued at most; older ones go first when more arrive."""


def speak_command(configured: str | None = None, wav_dir: Path | None = None) -> list[str] | None:
    """The command that speaks a text given as its last argument, or ``None`` when there is
    no voice. ``wav_dir`` makes espeak-ng write numbered WAV files there instead of playing
    (a machine without a sound card, a test)."""
    if configured:
        return shlex.split(configured)
    program = shutil.which("espeak-ng")
    if program is not None:
        return [program, *(["-w", str(wav_dir / "{n}.wav")] if wav_dir else []), "--"]
    if sys.platform == "darwin" and shutil.which("say"):
        return ["say", "--"]
    return None


class SpeechQueue:
    """Speaks queued texts in order on its own thread; see the module's docstring."""

    def __init__(self, command: list[str], *, max_age_s: float = 4.0) -> None:
        self.command = command
        self.max_age_s = max_age_s
        self.spoken: deque[str] = deque(maxlen=256)
        """What was said, oldest first (the last 256)."""
        self.dropped = 0
        self._waiting: deque[tuple[float, str]] = deque(maxlen=MAX_WAITING)
        self._ready = threading.Condition()
        self._speaking: subprocess.Popen[bytes] | None = None
        self._count = 0
        self._busy = False
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="monologue-speech", daemon=True)
        self._thread.start()

    def say(self, text: str, *, queued_at: float | None = None) -> None:
        """Queue ``text`` (``queued_at``: its ``time.monotonic()``, now by default)."""
        if not text.strip():
            return
        with self._ready:
            self._waiting.append((time.monotonic() if queued_at is None else queued_at, text))
            self._ready.notify()

    def cut(self) -> None:
        """Stop speaking now and forget everything waiting."""
        with self._ready:
            self.dropped += len(self._waiting)
            self._waiting.clear()
            speaking = self._speaking
        if speaking is not None and speaking.poll() is None:
            speaking.terminate()

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Block until nothing waits nor is being said (``False`` on timeout)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._ready:
                if not self._waiting and not self._busy:
                    return True
            time.sleep(0.02)
        return False

    def close(self) -> None:
        self.cut()
        with self._ready:
            self._closed = True
            self._ready.notify()
        self._thread.join(timeout=5)

    def _next(self) -> str | None:
        with self._ready:
            while not self._waiting and not self._closed:
                self._ready.wait()
            if self._closed:
                return None
            while self._waiting:
                queued_at, text = self._waiting.popleft()
                if time.monotonic() - queued_at <= self.max_age_s:
                    self._busy = True
                    return text
                self.dropped += 1
            return ""

    def _run(self) -> None:
        while (text := self._next()) is not None:
            if text:
                self._speak(text)

    def _speak(self, text: str) -> None:
        self._count += 1
        argv = [part.replace("{n}", f"{self._count:04d}") for part in self.command]
        try:
            process = subprocess.Popen(
                [*argv, text], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
        except OSError as exc:
            log.warning("monologue-claude-hooks: cannot speak with %s: %s", argv[0], exc)
            with self._ready:
                self._busy = False
            return
        with self._ready:
            self._speaking = process
        try:
            if process.wait(timeout=120) == 0:
                self.spoken.append(text)
        except subprocess.TimeoutExpired:
            process.kill()
        finally:
            with self._ready:
                self._speaking = None
                self._busy = False
