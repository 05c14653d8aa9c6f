"""The ASGI application: ``/graphql`` (GraphiQL in a browser), ``/schema.graphql`` (the SDL),
``/health``, local IDE assets.

``create_app`` does no I/O: the lifespan opens the service (built from settings unless one
is given) and, on shutdown, flushes access counters and closes the store, so a SIGTERM'd
server keeps every acknowledged write.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import logging
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from strawberry.asgi import GraphQL

import graphmem
from graphmem.api.context import Context
from graphmem.api.schema import build_schema, sdl
from graphmem.api.security import OPEN, ApiKeyMiddleware, BodyLimitMiddleware, KeyRing, Principal
from graphmem.service import MemoryService
from graphmem.settings import Settings

log = logging.getLogger("graphmem.api")

GRAPHQL_PATH = "/graphql"
ASSETS_PATH = "/graphiql"
_ASSETS = {
    "graphiql.min.js": "text/javascript; charset=utf-8",
    "graphiql.min.css": "text/css; charset=utf-8",
    "react.production.min.js": "text/javascript; charset=utf-8",
    "react-dom.production.min.js": "text/javascript; charset=utf-8",
}


class _State:
    """What the lifespan sets up and the handlers read (one per app)."""

    def __init__(self, settings: Settings, service: MemoryService | None) -> None:
        self.settings = settings
        self.service = service
        self.keyring = KeyRing(settings.api_keys, settings.api_keys_file)

    def require_service(self) -> MemoryService:
        if self.service is None:
            raise RuntimeError("the service is not open (the app runs without its lifespan?)")
        return self.service


class GraphMemGraphQL(GraphQL):
    """Strawberry's ASGI view with graphmem's per-request context and a CDN-free GraphiQL."""

    def __init__(self, state: _State, **kwargs: Any) -> None:
        super().__init__(build_schema(state.settings), **kwargs)
        self._state = state

    async def get_context(self, request: Any, response: Any) -> Context:  # type: ignore[override]
        principal: Principal = getattr(request.state, "principal", None) or OPEN
        return Context.build(self._state.require_service(), self._state.settings,
                             principal=principal, request=request, response=response)

    async def render_graphql_ide(self, request: Request) -> Response:
        return HTMLResponse(_ide_html())


@functools.cache
def _ide_html() -> str:
    text = (resources.files("graphmem.api") / "static" / "graphiql.html").read_text("utf-8")
    return text.replace("{{ASSETS}}", ASSETS_PATH)


@functools.cache
@functools.cache
def _sdl() -> str:
    return sdl()


def _asset(name: str) -> bytes:
    return (resources.files("graphmem.api") / "static" / "graphiql" / f"{name}.gz").read_bytes()


async def _serve_asset(request: Request) -> Response:
    name = request.path_params["name"]
    media = _ASSETS.get(name)
    if media is None:
        return Response("not found", status_code=404, media_type="text/plain")
    body = await anyio.to_thread.run_sync(_asset, name)
    headers = {"cache-control": "public, max-age=86400", "vary": "accept-encoding"}
    if "gzip" in request.headers.get("accept-encoding", ""):
        headers["content-encoding"] = "gzip"
    else:
        body = gzip.decompress(body)
    return Response(body, media_type=media, headers=headers)


def create_app(settings: Settings, service: MemoryService | None = None, *,
               manage_service: bool | None = None, settle: bool = False) -> Starlette:
    """The graphmem ASGI app.

    Without ``service`` one is built from ``settings`` and owned by the app (opened at
    startup, closed at shutdown). A given service is owned by the caller unless
    ``manage_service=True``; the app still flushes its access counters at shutdown.
    ``settle=True`` (``graphmem serve``) loads the embedding model at startup and freezes
    the start-up heap out of the garbage collector (see ``bootstrap.settle``).
    """
    state = _State(settings, service)
    manage = service is None if manage_service is None else manage_service

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await anyio.to_thread.run_sync(state.keyring.load)
        if state.service is None:
            from graphmem.bootstrap import build_service

            state.service = build_service(settings)
        svc = state.service
        if manage:
            await anyio.to_thread.run_sync(svc.open)
        if settle:
            from graphmem.bootstrap import settle as settle_service

            await anyio.to_thread.run_sync(settle_service, svc)
        log.info("graphmem %s ready: store=%s, auth=%s", graphmem.__version__,
                 svc.store.name, "api keys" if state.keyring.enabled else "off")
        try:
            yield
        finally:
            if manage:
                log.info("graphmem shutting down: flushing and closing the store")
                await anyio.to_thread.run_sync(svc.close)
            else:
                await anyio.to_thread.run_sync(svc.access.flush)

    async def health(request: Request) -> Response:
        svc = state.service
        if svc is None:
            return JSONResponse({"status": "starting"}, status_code=503)
        try:
            with anyio.fail_after(5):
                await anyio.to_thread.run_sync(svc.store.count, "Episode", "__health__")
        except Exception as e:  # noqa: BLE001 - any failure means "not healthy"
            log.warning("health check failed: %s", type(e).__name__)
            return JSONResponse({"status": "unavailable", "store": svc.store.name,
                                 "version": graphmem.__version__}, status_code=503)
        return JSONResponse({"status": "ok", "store": svc.store.name,
                             "version": graphmem.__version__,
                             "auth": state.keyring.enabled})

    async def schema_sdl(request: Request) -> Response:
        return Response(_sdl(), media_type="text/plain; charset=utf-8")

    graphql = GraphMemGraphQL(state, graphql_ide="graphiql", allow_queries_via_get=True)
    app = Starlette(
        routes=[
            Route(GRAPHQL_PATH, graphql, methods=["GET", "POST"]),
            Route("/health", health, methods=["GET"]),
            Route("/schema.graphql", schema_sdl, methods=["GET"]),
            Route(ASSETS_PATH + "/{name}", _serve_asset, methods=["GET"]),
        ],
        middleware=[
            Middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes),
            Middleware(ApiKeyMiddleware, keyring=state.keyring, protected=(GRAPHQL_PATH,)),
        ],
        lifespan=lifespan,
    )
    app.state.graphmem = state
    return app
