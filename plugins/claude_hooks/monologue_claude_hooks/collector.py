"""The per-user collector: takes hook payloads from ``monologue-hook run`` over a Unix socket
and turns each Claude session into a live, recorded, narrated monologue session.

It is started by the first payload that finds it down (``python -m
monologue_claude_hooks.collector``), reads the spool of payloads that could not be
delivered, and stops after ``MONOLOGUE_HOOK_IDLE_S`` seconds without a payload (30 minutes
by default), closing every session with its final narration. Only one runs per folder: it
holds a lock on ``collector.pid``.

Each Claude session id is the monologue session's id, so ``monologue log <id>`` and the web
viewer, which read the record folder, show it while it runs. Narratives and chapter
headings are appended to ``narratives.log`` (``monologue hook tail`` follows it) and, with
``--speak``, spoken.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from monologue import hookimpl

from .folder import Folder, lock
from .payloads import HookPayloadError, HookSession, parse_payload
from .settings import HOOK_IDLE_S as DEFAULT_IDLE_S
from .settings import SERVE_PORT as DEFAULT_SERVE_PORT
from .settings import ClaudeHooksSettings

if TYPE_CHECKING:
    from monologue import Session
    from monologue.events import Event

    from .speech import SpeechQueue

__all__ = ["DEFAULT_IDLE_S", "DEFAULT_SERVE_PORT", "Collector", "main"]

log = logging.getLogger("monologue.claude_hooks")

TAIL_MAX_BYTES = 1024 * 1024
"""``narratives.log`` is rotated (one old copy kept) past this size."""
_QUEUE_CAP = 4096
_READ_CAP = 64 * 1024 * 1024
"""Bytes read from one connection at most (a payload carries a whole file's content)."""


@dataclass
class _Live:
    session: Session
    hooks: HookSession
    last_payload: float = 0.0


class _Observer:
    """Sees the chapter events of the collector's sessions (registered with the plugins)."""

    def __init__(self, collector: Collector) -> None:
        self.collector = collector

    @hookimpl
    def on_event(self, session: Session, event: Event) -> None:
        if event.type == "chapter" and session.id in self.collector.sessions:
            data = event.data
            self.collector.show(session.id, f"## {data.get('title')}: {data.get('summary')}")
            self.collector.say(str(data.get("title", "")))


class Collector:
    """See the module's docstring. ``run()`` serves until idle; ``handle()`` takes one
    payload (the tests and the spool use it directly)."""

    def __init__(
        self,
        folder: Folder,
        *,
        idle_s: float = DEFAULT_IDLE_S,
        speech: SpeechQueue | None = None,
        serve: bool = False,
        serve_port: int = DEFAULT_SERVE_PORT,
    ) -> None:
        self.folder = folder
        self.idle_s = idle_s
        self.speech = speech
        self.serve = serve
        self.serve_port = serve_port
        self.sessions: dict[str, _Live] = {}
        self.malformed = 0
        self._inbox: queue.Queue[bytes] = queue.Queue(maxsize=_QUEUE_CAP)
        self._last_payload = time.monotonic()
        self._tail_lock = threading.Lock()
        self._observer = _Observer(self)
        self._viewer: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Collector:
        """Watch the chapters of this collector's sessions (``run`` does it)."""
        from monologue.plugins import get_plugin_manager

        get_plugin_manager().register(self._observer, name="claude_hooks_collector")
        return self

    def __exit__(self, *exc: object) -> None:
        from monologue.plugins import get_plugin_manager

        try:
            self.close()
        finally:
            get_plugin_manager().unregister(self._observer)

    # -- payloads -----------------------------------------------------------------------

    def handle(self, data: bytes) -> None:
        """Turn one payload into events of its session (a bad one is logged and skipped)."""
        self._last_payload = time.monotonic()
        try:
            payload = parse_payload(data)
        except HookPayloadError as exc:
            self.malformed += 1
            log.warning("monologue-claude-hooks: payload skipped: %s: %.80r", exc, data)
            return
        try:
            self._step(payload)
        except Exception:
            # One payload the code did not expect must not end every session's narration.
            log.exception("monologue-claude-hooks: a %s payload failed", payload["hook_event_name"])

    def _step(self, payload: dict[str, Any]) -> None:
        session_id = payload["session_id"]
        live = self.sessions.get(session_id)
        if live is None:
            live = self.sessions[session_id] = self._open(session_id, payload)
        live.last_payload = time.monotonic()
        step = live.hooks.step(payload)
        if step.prompt and self.speech is not None:
            self.speech.cut()
        for event in step.events:
            live.session.dispatch(event)
        if step.end:
            # Closed first: events still queued on its pipeline (a chapter, say) must still
            # find the session here when their hooks run.
            live.session.close()
            del self.sessions[session_id]
        elif payload["hook_event_name"] == "Stop":
            live.session.request_narration("idle")

    def close_idle(self) -> None:
        """Close the sessions that had no payload for ``idle_s`` (Claude Code was quit
        without a SessionEnd): a long-lived collector holds only the sessions in use."""
        now = time.monotonic()
        for session_id, live in list(self.sessions.items()):
            if now - live.last_payload >= self.idle_s:
                live.session.close()
                del self.sessions[session_id]

    def _open(self, session_id: str, payload: dict[str, Any]) -> _Live:
        from monologue import Session

        meta = {
            "source": "claude-code-hooks",
            "cwd": payload.get("cwd"),
            "transcript_path": payload.get("transcript_path"),
        }
        from monologue.settings import load_config

        # The project's own settings (narrator, gate, record folder...), found from its cwd.
        cwd = payload.get("cwd")
        start = Path(cwd) if isinstance(cwd, str) and Path(cwd).is_dir() else None
        config = load_config(start=start, tolerant=True)
        session = Session(
            "claude", session_id=session_id, meta=meta, config=config, on_narrative=self._narrated
        )
        session.start()
        self.show(session.id, f"session started in {payload.get('cwd') or '?'}")
        return _Live(session, HookSession(session.agent))

    def _narrated(self, narrative: Event) -> None:
        # Also the final narrative of a session being closed, no longer in ``sessions``.
        text = str(narrative.data.get("text", ""))
        self.show(narrative.session_id, text)
        self.say(text)

    # -- output -------------------------------------------------------------------------

    def show(self, session_id: str, line: str) -> None:
        """Append a line to ``narratives.log`` (rotated past :data:`TAIL_MAX_BYTES`)."""
        stamp = datetime.now().strftime("%H:%M:%S")
        text = f"{stamp} [{session_id[:8]}] {' '.join(line.split())}\n"
        path = self.folder.tail
        with self._tail_lock:
            try:
                if path.exists() and path.stat().st_size > TAIL_MAX_BYTES:
                    path.replace(path.with_suffix(".log.1"))
                with open(path, "a", encoding="utf-8") as handle:
                    handle.write(text)
            except OSError as exc:
                log.warning("monologue-claude-hooks: cannot write %s: %s", path, exc)

    def say(self, text: str) -> None:
        if self.speech is not None:
            self.speech.say(text)

    # -- serving ------------------------------------------------------------------------

    def run(self) -> int:
        """Serve until idle; 0, or 1 when another collector already serves this folder."""
        self.folder.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        with open(self.folder.pid, "a+") as handle:
            if not lock(handle):
                log.info("monologue-claude-hooks: a collector already runs in %s", self.folder.path)
                with contextlib.suppress(FileNotFoundError):
                    self.folder.starting.unlink()
                return 1
            handle.seek(0)
            handle.truncate()
            handle.write(str(os.getpid()))
            handle.flush()
            try:
                with self:
                    self._serve()
            finally:
                with contextlib.suppress(OSError):
                    self.folder.socket.unlink()
        return 0

    def _serve(self) -> None:
        path = self.folder.socket
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # left by a collector that was killed: we hold the lock
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(str(path))
        os.chmod(path, 0o600)
        server.listen(128)
        with contextlib.suppress(FileNotFoundError):
            self.folder.starting.unlink()
        log.info("monologue-claude-hooks: collector %d listening on %s", os.getpid(), path)
        if self.serve:
            self._start_viewer()
        threading.Thread(target=self._accept, args=(server,), daemon=True).start()
        try:
            self._drain_spool()
            while time.monotonic() - self._last_payload < self.idle_s:
                try:
                    data = self._inbox.get(timeout=0.25)
                except queue.Empty:
                    self._drain_spool()
                    self.close_idle()
                    continue
                self.handle(data)
        finally:
            # Hooks from now on spool and start the next collector, which waits for the
            # lock while this one closes its sessions; what was already accepted is handled.
            with contextlib.suppress(OSError):
                path.unlink()
            server.close()
            while not self._inbox.empty():
                self.handle(self._inbox.get_nowait())

    def _accept(self, server: socket.socket) -> None:
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return  # closed
            with client:
                client.settimeout(5)
                chunks: list[bytes] = []
                size = 0
                try:
                    while chunk := client.recv(65536):
                        chunks.append(chunk)
                        size += len(chunk)
                        if size > _READ_CAP:
                            break
                except OSError:
                    pass
            try:
                self._inbox.put(b"".join(chunks), timeout=5)
            except queue.Full:
                log.warning("monologue-claude-hooks: inbox full, payload dropped")

    def _drain_spool(self) -> None:
        """Handle, in order, the payloads hooks spooled while no collector was up."""
        spool = self.folder.spool
        if not spool.exists():
            return
        taken = spool.with_name(f"spool.{os.getpid()}.jsonl")
        try:
            spool.replace(taken)
            lines = taken.read_bytes().splitlines()
        except OSError as exc:
            log.warning("monologue-claude-hooks: cannot read the spool: %s", exc)
            return
        log.info("monologue-claude-hooks: replaying %d spooled payload(s)", len(lines))
        for line in lines:
            if line.strip():
                self.handle(line)
        taken.unlink()

    def _start_viewer(self) -> None:
        """``monologue serve`` beside the collector: the viewer reads the record folder."""
        import importlib.util

        if importlib.util.find_spec("monologue_web") is None:
            log.warning("monologue-claude-hooks: --serve needs monologue-web: pip install it")
            return
        with open(self.folder.serve_log, "ab") as out:
            self._viewer = subprocess.Popen(
                [sys.executable, "-m", "monologue", "serve", "--port", str(self.serve_port)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
            )

    def close(self) -> None:
        """Close every session (final narrations included), the voice and the viewer."""
        for session_id, live in list(self.sessions.items()):
            live.session.close()
            del self.sessions[session_id]
        if self.speech is not None:
            self.speech.wait_idle(timeout=10)
            self.speech.close()
        if self._viewer is not None:
            self._viewer.terminate()
            try:
                self._viewer.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._viewer.kill()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m monologue_claude_hooks.collector")
    parser.add_argument("--speak", action="store_true", help="speak chapters and narratives")
    parser.add_argument("--serve", action="store_true", help="run the web viewer too")
    args = parser.parse_args(argv)
    # A clean stop on SIGTERM: sessions closed with their final narration, viewer stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    # Narration is background work: the hooks, and Claude Code itself, come first.
    with contextlib.suppress(OSError):
        os.nice(10)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(process)d %(message)s")
    from monologue.settings import load_config

    settings = load_config(tolerant=True).settings(ClaudeHooksSettings)
    speech = None
    if args.speak:
        from .speech import SpeechQueue, speak_command

        command = speak_command(settings.speak_command, settings.hook_speak_wav_dir)
        if command is None:
            log.warning("monologue-claude-hooks: --speak, but no espeak-ng nor say is installed")
        else:
            speech = SpeechQueue(command)
    collector = Collector(
        Folder.default(),
        idle_s=settings.hook_idle_s,
        speech=speech,
        serve=args.serve,
        serve_port=settings.hook_serve_port,
    )
    return collector.run()


if __name__ == "__main__":
    sys.exit(main())
