"""The loopback server's misbehaviours: replies that hang, trickle, garble or hang up.

Each one ends when the client hangs up (or the server stops), so that a test which counts
threads and sockets sees the server's side go away as soon as the client's does.
"""

from __future__ import annotations

import math
import select
import socket
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from http.server import BaseHTTPRequestHandler

    from .replies import Reply

__all__ = ["misbehave"]

_POLL_S = 0.05
_TRICKLE_LENGTH = 1_000_000
_GARBAGE = b"\x00\x17\xfe this is not HTTP \xff\r\n\r\n{]"


def misbehave(handler: BaseHTTPRequestHandler, reply: Reply, stopping: threading.Event) -> None:
    """Act out ``reply.behaviour`` (anything but ``answer``) on ``handler``'s connection."""
    handler.close_connection = True
    conn = handler.connection
    if reply.behaviour == "close":
        return
    if reply.behaviour == "garbage":
        handler.wfile.write(_GARBAGE)
        return
    if reply.behaviour in ("hang_after_headers", "trickle"):
        handler.send_response(200)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(_TRICKLE_LENGTH))
        handler.end_headers()
        handler.wfile.flush()
    if reply.behaviour != "trickle":
        _client_gone(conn, stopping, math.inf)
        return
    for _ in range(_TRICKLE_LENGTH):
        if _client_gone(conn, stopping, reply.interval_s):
            return
        try:
            handler.wfile.write(b" ")  # leading whitespace keeps the body valid JSON so far
        except OSError:
            return


def _client_gone(conn: socket.socket, stopping: threading.Event, seconds: float) -> bool:
    """Wait up to ``seconds``; ``True`` as soon as the client hung up or the server stops."""
    end = time.monotonic() + seconds
    while not stopping.is_set():
        remaining = end - time.monotonic()
        if remaining <= 0:
            return False
        readable, _, _ = select.select([conn], [], [], min(remaining, _POLL_S))
        if not readable:
            continue
        try:
            if not conn.recv(1, socket.MSG_PEEK):
                return True
        except OSError:
            return True
        stopping.wait(min(remaining, _POLL_S))  # bytes sent while we stall: not a hang-up
    return True
