"""API keys and request limits, as plain ASGI middleware.

Keys come from ``settings.api_keys`` (key -> allowed userIds) and/or the JSON file named by
``settings.api_keys_file`` (same shape). With no key configured the service is open (a
local, single-user setup). With keys configured every GraphQL request must carry one, as
``Authorization: Bearer <key>`` or ``X-API-Key: <key>``; a key reads and writes only the
users it lists (``"*"`` in the list allows every user). The GraphiQL page itself (a bare
browser GET, see ``is_ide_page``), its assets, ``/health`` and the SDL are public; every
other request needs a key.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graphmem.errors import ForbiddenError, GraphMemError

ALL_USERS = "*"


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: the users one key may touch (``None``: anyone, auth is off)."""

    name: str
    allowed: frozenset[str] | None

    def authorize(self, user_id: str, field: str = "userId") -> None:
        """Raise ``ForbiddenError`` (naming the field and user) unless ``user_id`` is allowed."""
        if self.allowed is None or ALL_USERS in self.allowed:
            return
        if user_id.strip() not in self.allowed:
            err = ForbiddenError(f"{field}: this API key may not access user {user_id!r}")
            err.field = field  # type: ignore[attr-defined]
            raise err


OPEN = Principal("anonymous", None)
#: the principal of a request that presented no key where none was needed (the GraphiQL
#: page): it may touch no user, so a request that reached execution this way reads nothing
DENY = Principal("unauthenticated", frozenset())


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()


class KeyRing:
    """The configured keys, held as digests. The file is read on ``load()`` (in the lifespan),
    or lazily on the first request when the app runs without a lifespan."""

    def __init__(self, inline: dict[str, list[str]] | None = None,
                 path: Path | None = None) -> None:
        self._inline = dict(inline or {})
        self._path = path
        self._keys: dict[bytes, Principal] | None = None
        self._lock = threading.Lock()

    def load(self) -> KeyRing:
        keys: dict[str, list[str]] = dict(self._inline)
        if self._path is not None:
            try:
                raw = json.loads(Path(self._path).read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise GraphMemError(f"cannot read the API key file {self._path}: {e}") from e
            if not isinstance(raw, dict) or not all(
                    isinstance(k, str) and isinstance(v, list) for k, v in raw.items()):
                raise GraphMemError(f"API key file {self._path} must hold an object "
                                    f"{{key: [userId, ...]}}")
            keys.update(raw)
        built: dict[bytes, Principal] = {}
        for i, (key, users) in enumerate(sorted(keys.items())):
            if not key:
                raise GraphMemError("an API key must not be empty")
            built[_digest(key)] = Principal(f"key-{i + 1}",
                                            frozenset(str(u).strip() for u in users))
        with self._lock:
            self._keys = built
        return self

    @property
    def enabled(self) -> bool:
        return bool(self._loaded())

    def _loaded(self) -> dict[bytes, Principal]:
        if self._keys is None:
            self.load()
        assert self._keys is not None
        return self._keys

    def principal_for(self, presented: str | None) -> Principal | None:
        """The principal of a presented key; ``OPEN`` when auth is off; None when refused."""
        keys = self._loaded()
        if not keys:
            return OPEN
        if not presented:
            return None
        digest = _digest(presented)
        found: Principal | None = None
        for known, principal in keys.items():  # constant-time compare over every key
            if hmac.compare_digest(known, digest):
                found = principal
        return found


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server on this machine (names other than
    ``localhost`` count as reachable from outside)."""
    host = host.strip().strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def presented_key(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    for name, value in headers:
        lname = name.lower()
        if lname == b"authorization":
            text = value.decode("latin-1").strip()
            if text[:7].lower() == "bearer ":
                return text[7:].strip()
        elif lname == b"x-api-key":
            return value.decode("latin-1").strip()
    return None


async def _send_json(send: Send, status: int, body: dict[str, Any],
                     headers: list[tuple[bytes, bytes]] | None = None) -> None:
    payload = json.dumps(body).encode("utf-8")
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()), *(headers or [])]})
    await send({"type": "http.response.body", "body": payload})


def _error(message: str, code: str) -> dict[str, Any]:
    return {"data": None, "errors": [{"message": message, "extensions": {"code": code}}]}


class ApiKeyMiddleware:
    """Puts the caller's ``Principal`` in ``scope["state"]["principal"]``; 401 when refused.

    Deny by default: every HTTP request needs a key (when keys are configured) except the
    ``public`` paths and the GraphiQL page itself (``is_ide_page``: a bare browser GET that
    cannot carry an operation). The decision is made on the request's shape, never by looking
    for an operation in it, so no encoding of the query string or body can get around it.
    There is no WebSocket endpoint: a WebSocket handshake is refused before it is accepted.
    """

    def __init__(self, app: ASGIApp, keyring: KeyRing, public: tuple[str, ...],
                 public_prefixes: tuple[str, ...], ide_path: str,
                 drain_bytes: int = 1 << 20) -> None:
        self.app = app
        self.keyring = keyring
        self.public = public
        self.public_prefixes = public_prefixes
        self.ide_path = ide_path
        self.drain_bytes = drain_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            return
        path = scope.get("path", "")
        principal: Principal | None = None
        if not (path in self.public or path.startswith(self.public_prefixes)
                or (path == self.ide_path and is_ide_page(scope))):
            principal = self.keyring.principal_for(presented_key(scope.get("headers", [])))
            if principal is None:
                # Read what the client is still sending: closing on an unread body resets
                # the connection before the client sees the answer.
                await drain(receive, self.drain_bytes)
                await _send_json(send, 401, _error("missing or invalid API key: send "
                                                   "'Authorization: Bearer <key>' or "
                                                   "'X-API-Key: <key>'", "UNAUTHENTICATED"),
                                 [(b"www-authenticate", b'Bearer realm="graphmem"')])
                return
        scope.setdefault("state", {})["principal"] = principal
        await self.app(scope, receive, send)


def is_ide_page(scope: Scope) -> bool:
    """A browser's bare GET of the GraphiQL page: no query string at all and an HTML Accept.

    Only this shape is served without a key, and it is answered with the static page; any
    query string (however encoded) or any other method needs a key."""
    if scope.get("method") != "GET" or scope.get("query_string", b""):
        return False
    accept = b",".join(v for k, v in scope.get("headers", []) if k.lower() == b"accept")
    return b"text/html" in accept.lower()


async def drain(receive: Receive, limit: int) -> bool:
    """Read and drop the rest of a request body, at most ``limit`` bytes; True if all read."""
    seen = 0
    while seen <= limit:
        message = await receive()
        if message["type"] != "http.request":
            return False
        seen += len(message.get("body", b""))
        if not message.get("more_body", False):
            return True
    return False


class BodyTooLarge(Exception):
    """Raised from ``receive`` past the body limit; ``BodyLimitMiddleware`` answers 413."""


class BodyLimitMiddleware:
    """Answers 413 when a request body is larger than ``max_bytes`` (declared or streamed).

    The rest of the body is read (up to ``drain_bytes``) before the answer, so the client
    gets the 413 instead of a reset connection; the connection is then closed."""

    def __init__(self, app: ASGIApp, max_bytes: int, drain_bytes: int = 64 << 20) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.drain_bytes = drain_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name.lower() == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > self.max_bytes:
                    await drain(receive, min(declared, self.drain_bytes))
                    await self._reject(send)
                    return
        seen = 0
        started = False
        finished = False

        async def limited_receive() -> Message:
            nonlocal seen, finished
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                finished = not message.get("more_body", False)
                if seen > self.max_bytes:
                    raise BodyTooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                if not finished:
                    await drain(receive, self.drain_bytes)
                await self._reject(send)

    async def _reject(self, send: Send) -> None:
        await _send_json(send, 413, _error(
            f"request body too large: at most {self.max_bytes} bytes", "PAYLOAD_TOO_LARGE"),
            [(b"connection", b"close")])
