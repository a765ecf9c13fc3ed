"""Where the server may listen: loopback, or anywhere else behind a token; and the socket.

Recordings hold what agents read and ran, so the server listens on loopback unless told
otherwise. Nothing here imports Starlette: ``monologue --help`` loads this module.
"""

from __future__ import annotations

import errno
import ipaddress
import secrets
import socket
from typing import Final

__all__ = [
    "LOOPBACK_NAMES",
    "BindRefused",
    "PortTaken",
    "bind_socket",
    "check_bind",
    "is_loopback",
    "new_token",
]

LOOPBACK_NAMES: Final = ("127.0.0.1", "localhost", "::1", "[::1]")


class BindRefused(ValueError):
    """A bind the safety rules refuse; the message says what to do instead."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse a non-loopback ``host`` without a token."""
    if not is_loopback(host) and not token:
        raise BindRefused(
            f"refusing to serve recordings on {host}: anyone who can reach it could read "
            "them; bind 127.0.0.1, or give --token TOKEN (or --generate-token) so that only "
            "holders of the token can"
        )


def new_token() -> str:
    return secrets.token_urlsafe(24)


class PortTaken(OSError):
    """The port is in use; ``suggestion`` is a free one nearby (or ``None``)."""

    def __init__(self, host: str, port: int, suggestion: int | None) -> None:
        hint = f"; try --port {suggestion}" if suggestion else ""
        super().__init__(f"port {port} on {host} is already in use{hint}")
        self.suggestion = suggestion


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _try_bind(host: str, port: int) -> socket.socket:
    # Named TCP, so that asyncio sets TCP_NODELAY on each connection: otherwise a response
    # written in two parts (head, body) waits for the client's delayed ACK, 40 ms.
    sock = socket.socket(_family(host), socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except BaseException:
        sock.close()
        raise
    return sock


def bind_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port``, handed to uvicorn as is (no race with another
    process between checking the port and using it); :class:`PortTaken` when in use."""
    try:
        sock = _try_bind(host, port)
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise
    else:
        # Listening at once: a browser opened before uvicorn starts waits in the backlog
        # instead of being refused.
        sock.listen(128)
        return sock
    for candidate in [*range(port + 1, port + 11), 0]:
        try:
            probe = _try_bind(host, candidate)
        except OSError:
            continue
        suggestion = int(probe.getsockname()[1])
        probe.close()
        raise PortTaken(host, port, suggestion)
    raise PortTaken(host, port, None)
