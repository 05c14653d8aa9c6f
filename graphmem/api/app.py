"""The ASGI application: ``/graphql`` (GraphiQL in a browser), ``/schema.graphql`` (the SDL),
``/health``, local IDE assets, and ``/mcp`` (the MCP server of ``graphmem.mcp_server``,
behind the same API keys).

``create_app`` does no I/O: the lifespan opens the service (built from settings unless one
is given) and, on shutdown, flushes access counters and closes the store, so a SIGTERM'd
server keeps every acknowledged write.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from importlib import resources
from typing import Any

import anyio.to_thread
from cross_web import HTTPException, StarletteRequestAdapter
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLHTTPResponse, GraphQLRequestData

import graphmem
from graphmem.api._request import BadRequest, error_response, from_body, from_query_string
from graphmem.api.context import Context
from graphmem.api.errors import INTERNAL
from graphmem.api.schema import build_schema, sdl
from graphmem.api.security import (
    DENY,
    ApiKeyMiddleware,
    BodyLimitMiddleware,
    BodyTooLarge,
    KeyRing,
    Principal,
    is_ide_page,
)
from graphmem.service import MemoryService
from graphmem.settings import Settings

log = logging.getLogger("graphmem.api")

GRAPHQL_PATH = "/graphql"
MCP_PATH = "/mcp"
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


_HTTP_CODES = {400: "BAD_REQUEST", 404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED",
               413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE"}


class _RequestAdapter(StarletteRequestAdapter):
    """Strawberry's request adapter, with the ASGI scope at hand (raw query string)."""

    def __init__(self, request: Request) -> None:
        super().__init__(request)
        self.scope = request.scope


class GraphMemGraphQL(GraphQL):
    """Strawberry's ASGI view with graphmem's per-request context, a CDN-free GraphiQL, a
    strict request reader (``_request``) and every failure answered as a coded JSON error.
    No WebSocket transport: there are no subscriptions."""

    request_adapter_class = _RequestAdapter

    def __init__(self, state: _State, **kwargs: Any) -> None:
        super().__init__(build_schema(state.settings), subscription_protocols=(), **kwargs)
        self._state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            return
        try:
            response = await self.run(Request(scope=scope, receive=receive))
        except BadRequest as e:
            response = error_response(e.status, e.message, e.code)
        except HTTPException as e:
            response = error_response(e.status_code, e.reason,
                                      _HTTP_CODES.get(e.status_code, "BAD_REQUEST"))
        except BodyTooLarge:
            raise  # BodyLimitMiddleware answers it
        except Exception:  # a fault of ours: logged whole, answered without details
            log.exception("unexpected error handling %s %s", scope.get("method"),
                          scope.get("path"))
            response = error_response(500, INTERNAL, "INTERNAL_SERVER_ERROR")
        await response(scope, receive, send)

    async def get_context(self, request: Any, response: Any) -> Context:  # type: ignore[override]
        # The key middleware set the principal; a request it let through without one (the
        # GraphiQL page) may touch no user.
        principal: Principal = getattr(request.state, "principal", None) or DENY
        return Context.build(self._state.require_service(), self._state.settings,
                             principal=principal, request=request, response=response)

    def should_render_graphql_ide(self, request: Any) -> bool:
        # The same test the key middleware applies: only a bare browser GET gets the page.
        return is_ide_page(request.scope)

    async def parse_http_body(self, request: Any) -> GraphQLRequestData:  # type: ignore[override]
        scope = request.scope
        if request.method == "GET":
            return from_query_string(scope.get("query_string", b""))
        return from_body(request.content_type, await request.get_body(),
                         scope.get("query_string", b""))

    async def process_result(self, request: Any, result: Any) -> GraphQLHTTPResponse:
        out = await super().process_result(request, result)
        errors: list[dict[str, Any]] = out.get("errors") or []  # type: ignore[assignment]
        for err in errors:
            # ClientErrors codes every error it sees; one that escaped it (raised around
            # strawberry's own steps) is masked here rather than shown as Python text.
            if not (err.get("extensions") or {}).get("code"):
                log.error("uncoded GraphQL error masked: %s", err.get("message"))
                err["message"] = INTERNAL
                err["extensions"] = {"code": "INTERNAL_SERVER_ERROR"}
        return out

    async def render_graphql_ide(self, request: Request) -> Response:
        return HTMLResponse(_ide_html())


class _NoQueryStrings(logging.Filter):
    """uvicorn's access log line without the query string: a GET's query and variables
    may hold secrets or personal data."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], args[2].split("?", 1)[0], *args[3:])
        return True


def hide_query_strings_in_access_log() -> None:
    """Install ``_NoQueryStrings`` on uvicorn's access logger (once)."""
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, _NoQueryStrings) for f in access.filters):
        access.addFilter(_NoQueryStrings())


@functools.cache
def _ide_html() -> str:
    text = (resources.files("graphmem.api") / "static" / "graphiql.html").read_text("utf-8")
    return text.replace("{{ASSETS}}", ASSETS_PATH)


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


def _mcp(state: _State) -> tuple[Any, Callable[[], AbstractAsyncContextManager[Any]]]:
    """The MCP endpoint (``graphmem.mcp_server``, behind the same key middleware) and the
    context its lifespan runs in; without the ``mcp`` package, a 501 saying how to get it."""
    try:
        from graphmem.mcp_server import mount_mcp
    except ImportError:
        async def missing(request: Request) -> Response:
            return error_response(501, "the MCP endpoint needs the mcp package: "
                                       "pip install 'graphmem[mcp]'", "NOT_IMPLEMENTED")

        return missing, contextlib.nullcontext
    return mount_mcp(state.require_service, state.settings.host)


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

    hide_query_strings_in_access_log()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        hide_query_strings_in_access_log()  # again: a server may have reset logging since
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
            async with mcp_running():
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

    mcp_endpoint, mcp_running = _mcp(state)

    graphql = GraphMemGraphQL(state, graphql_ide="graphiql", allow_queries_via_get=True)
    app = Starlette(
        routes=[
            Route(GRAPHQL_PATH, graphql, methods=["GET", "POST"]),
            Route("/health", health, methods=["GET"]),
            Route("/schema.graphql", schema_sdl, methods=["GET"]),
            Route(ASSETS_PATH + "/{name}", _serve_asset, methods=["GET"]),
            Route(MCP_PATH, mcp_endpoint, methods=["GET", "POST", "DELETE"]),
        ],
        middleware=[
            Middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes),
            Middleware(ApiKeyMiddleware, keyring=state.keyring,
                       public=("/health", "/schema.graphql"),
                       public_prefixes=(ASSETS_PATH + "/",), ide_path=GRAPHQL_PATH),
        ],
        lifespan=lifespan,
    )
    app.state.graphmem = state
    return app
