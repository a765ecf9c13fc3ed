"""``monologue-hook run``: the command a Claude Code hook runs, as small and fast as it can be.

It reads one hook payload on stdin and hands it to the per-user collector over a Unix
socket, then exits 0 at once. It never prints on stdout (Claude Code would read it as the
hook's answer) and never fails: when the collector is down, the payload is appended to a
spool file that the collector reads when it starts, and the collector is started, detached.

This module is deliberately a top-level one importing only the standard library: importing
``monologue_claude_hooks`` (or pluggy, pydantic, click) would cost more than the whole
budget of a hook (see benchmarks/bench_hooks.py).
"""

from __future__ import annotations

# The C module itself: ``socket`` imports selectors, enum and collections, which would cost
# a loaded machine more time than the rest of this command.
import _socket
import os
import sys
import time

__all__ = ["SPOOL_MAX_BYTES", "deliver", "main", "runtime_dir"]

SPOOL_MAX_BYTES = 64 * 1024 * 1024
"""Past this size the spool takes no more payloads: nothing grows without bound."""

_CONNECT_TIMEOUT_S = 0.2
_SEND_TIMEOUT_S = 2.0
_STARTING_STALE_S = 10.0
"""A start marker older than this belongs to a collector that never came up."""


def runtime_dir() -> str:
    """Where the collector's socket, spool and logs live (one folder per user)."""
    chosen = os.environ.get("MONOLOGUE_HOOK_DIR")
    if chosen:
        return chosen
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and os.path.isdir(base):
        return os.path.join(base, "monologue-hooks")
    return os.path.join("/tmp", f"monologue-hooks-{os.getuid()}")


def _send(path: str, data: bytes) -> bool:
    client = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        client.settimeout(_CONNECT_TIMEOUT_S)
        client.connect(path)
        client.settimeout(_SEND_TIMEOUT_S)
        client.sendall(data)
        client.shutdown(_socket.SHUT_WR)
        return True
    except OSError:
        return False
    finally:
        client.close()


def _spool(folder: str, data: bytes) -> None:
    path = os.path.join(folder, "spool.jsonl")
    try:
        if os.path.getsize(path) > SPOOL_MAX_BYTES:
            return
    except OSError:
        pass
    # One line a payload: Claude Code writes compact JSON, but a pretty-printed payload
    # from elsewhere must not become several lines.
    line = b" ".join(data.split()) if b"\n" in data.strip() else data.strip()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line + b"\n")  # one write with O_APPEND: lines never interleave
    finally:
        os.close(fd)


def _start_collector(folder: str, flags: list[str]) -> None:
    """Start the collector, detached, unless another hook has just done so."""
    marker = os.path.join(folder, "starting")
    try:
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        try:
            if time.time() - os.path.getmtime(marker) < _STARTING_STALE_S:
                return
            os.unlink(marker)
            fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError:
            return
    os.close(fd)
    import subprocess  # only on this rare path: it costs milliseconds

    log = os.open(os.path.join(folder, "collector.log"), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        subprocess.Popen(
            [sys.executable, "-m", "monologue_claude_hooks.collector", *flags],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            close_fds=True,
        )
    finally:
        os.close(log)


def deliver(data: bytes, flags: list[str] | None = None) -> str:
    """Hand one payload to the collector: ``"sent"``, else ``"spooled"`` (and the collector
    started)."""
    folder = runtime_dir()
    if _send(os.path.join(folder, "collector.sock"), data):
        return "sent"
    os.makedirs(folder, mode=0o700, exist_ok=True)
    _spool(folder, data)
    _start_collector(folder, flags or [])
    return "spooled"


def main(argv: list[str] | None = None) -> int:
    """``monologue-hook run [--speak] [--serve]``: always exits 0, prints nothing on stdout."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] != "run":
        print("usage: monologue-hook run [--speak] [--serve] < payload.json", file=sys.stderr)
        return 0
    try:
        data = sys.stdin.buffer.read()
        if data.strip():
            deliver(data, [flag for flag in args[1:] if flag in ("--speak", "--serve")])
    except Exception as exc:  # a hook must never fail Claude Code's tool call
        print(f"monologue-hook: payload not delivered: {exc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
