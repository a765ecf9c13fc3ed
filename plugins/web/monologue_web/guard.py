"""Who may read: the token, read-only methods, and safety headers on every response."""

from __future__ import annotations

import secrets
from typing import Final
from urllib.parse import parse_qs

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["TokenGuard"]

_HEADERS: Final = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:"),
]


class TokenGuard:
    """ASGI middleware: only GET and HEAD; ``/api/`` only with the token (``?token=`` or
    ``Authorization: Bearer``) when one is set; safety headers on every response.

    The page and its script are served to anyone: they hold no data, every byte of which
    comes from ``/api/``.
    """

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] not in ("GET", "HEAD"):
            response = JSONResponse({"error": "this server is read-only"}, status_code=405)
            await response(scope, receive, self._with_headers(send))
            return
        if self.token and scope["path"].startswith("/api/") and not self._holds_token(scope):
            response = JSONResponse(
                {"error": "a token is required: open the address `monologue serve` printed"},
                status_code=401,
            )
            await response(scope, receive, self._with_headers(send))
            return
        await self.app(scope, receive, self._with_headers(send))

    def _holds_token(self, scope: Scope) -> bool:
        assert self.token is not None
        given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])
        scheme, _, credentials = Headers(scope=scope).get("authorization", "").partition(" ")
        # Auth schemes are case-insensitive (RFC 9110, 11.1): `bearer` is `Bearer`.
        bearer = credentials.strip() if scheme.lower() == "bearer" else ""
        candidates = [given[-1], bearer]
        return any(secrets.compare_digest(c.encode(), self.token.encode()) for c in candidates)

    @staticmethod
    def _with_headers(send: Send) -> Send:
        async def sender(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *_HEADERS]}
            await send(message)

        return sender
