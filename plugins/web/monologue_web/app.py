"""The Starlette application: the page (package data) and its read-only JSON and SSE API.

``GET /api/sessions`` (``/stream`` for live updates), ``GET /api/sessions/{id}``,
``/api/sessions/{id}/stream``, ``/api/sessions/{id}/events/{event_id}`` (a whole recorded
event) and ``/api/sessions/{id}/boards`` (task graph and status board, where installed).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from sse_starlette import EventSourceResponse
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .bind import LOOPBACK_NAMES, check_bind, is_loopback
from .boards import boards_for
from .catalog import SessionCatalog, recording_path
from .guard import TokenGuard
from .live import LiveTails
from .reading import NotARecording, find_event
from .streams import session_events, session_list
from .watch import FolderWatch

__all__ = ["WebSettings", "create_app"]


class WebSettings(BaseModel):
    """How ``monologue serve`` serves a record folder."""

    model_config = ConfigDict(frozen=True)

    record_dir: Path
    host: str = "127.0.0.1"
    token: str | None = None
    recheck_s: float = Field(
        1.0, gt=0, description="Without a change notice, a live recording is read this often."
    )
    list_poll_s: float = Field(0.5, gt=0, description="The folder is rescanned at most this often.")
    list_recheck_s: float = Field(
        5.0, gt=0, description="Without a change notice, the folder is rescanned this often."
    )
    clip_chars: int = Field(2000, ge=16, description="Longer strings are cut in the page.")
    idle_after_s: float = Field(600.0, gt=0, description="Idle this long: no longer live.")


def _not_found(what: str) -> JSONResponse:
    return JSONResponse({"error": f"no such {what}"}, status_code=404)


class _Api:
    """The routes' shared state: the settings and the folder's catalog.

    Routes that read files are plain functions: Starlette runs them in its thread pool, so a
    large folder or recording never holds up the event streams.
    """

    def __init__(self, settings: WebSettings) -> None:
        self.settings = settings
        self.catalog = SessionCatalog(settings.record_dir, settings.idle_after_s)
        self.watch = FolderWatch(settings.record_dir.resolve())
        self.live = LiveTails()

    def _path(self, request: Request) -> Path | None:
        return recording_path(self.settings.record_dir, request.path_params["session_id"])

    def sessions(self, request: Request) -> Response:
        rows = self.catalog.summaries(self.settings.list_poll_s / 2)
        return JSONResponse([row.model_dump(mode="json") for row in rows])

    async def sessions_stream(self, request: Request) -> Response:
        stream = session_list(
            self.catalog,
            watch=self.watch,
            min_gap_s=self.settings.list_poll_s,
            recheck_s=self.settings.list_recheck_s,
        )
        return EventSourceResponse(stream)

    def session(self, request: Request) -> Response:
        summary = self.catalog.summary(request.path_params["session_id"])
        if summary is None:
            return _not_found("session")
        return JSONResponse(summary.model_dump(mode="json"))

    async def session_stream(self, request: Request) -> Response:
        path = self._path(request)
        if path is None:
            return _not_found("session")
        resume = request.headers.get("last-event-id", "")
        after_line = int(resume) if resume.isdigit() else 0
        stream = session_events(
            path,
            request.path_params["session_id"],
            after_line,
            start=self.catalog.checkpoint(path, after_line) if after_line else None,
            watch=self.watch,
            live=self.live,
            recheck_s=self.settings.recheck_s,
            clip_chars=self.settings.clip_chars,
        )
        try:
            # Open the recording now, so that a file that is no recording is a 404, not a
            # stream that fails once started.
            first = await anext(stream)
        except (NotARecording, OSError):
            return _not_found("session")
        return EventSourceResponse(_prepend(first, stream), ping=15)

    def event(self, request: Request) -> Response:
        path = self._path(request)
        if path is None:
            return _not_found("session")
        try:
            event = find_event(path, request.path_params["event_id"])
        except (NotARecording, OSError):
            return _not_found("session")
        if event is None:
            return _not_found("event")
        return JSONResponse(event)

    def boards(self, request: Request) -> Response:
        summary = self.catalog.summary(request.path_params["session_id"])
        if summary is None:
            return _not_found("session")
        return JSONResponse(boards_for(summary.task_id).model_dump(mode="json"))


async def _prepend(first: bytes, rest: AsyncGenerator[bytes]) -> AsyncIterator[bytes]:
    try:
        yield first
        async for item in rest:
            yield item
    finally:
        # Closes the recording at once when the client goes away.
        await rest.aclose()


def create_app(settings: WebSettings) -> Starlette:
    """The application; refuses (``BindRefused``) settings that would expose recordings."""
    check_bind(settings.host, settings.token)
    api = _Api(settings)
    middleware = [Middleware(TokenGuard, token=settings.token)]
    if is_loopback(settings.host):
        # A page on another site must not reach a loopback server through a DNS name that
        # resolves to 127.0.0.1 (DNS rebinding).
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=list(LOOPBACK_NAMES)))
    routes = [
        Route("/api/sessions", api.sessions),
        Route("/api/sessions/stream", api.sessions_stream),
        Route("/api/sessions/{session_id}", api.session),
        Route("/api/sessions/{session_id}/stream", api.session_stream),
        Route("/api/sessions/{session_id}/events/{event_id}", api.event),
        Route("/api/sessions/{session_id}/boards", api.boards),
        Mount("/", StaticFiles(packages=[("monologue_web", "static")], html=True)),
    ]

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        api.watch.start()
        try:
            yield
        finally:
            api.watch.stop()
            api.catalog.close()

    return Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
