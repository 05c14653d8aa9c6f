"""The client's errors: one per ``extensions.code`` the API answers with.

Every error carries the server's ``code``, the offending ``field`` (when the server named
one), the GraphQL ``path`` and the HTTP ``status``. They are ``GraphMemError``s, and a
refused input is also an ``InvalidInputError``, so code written against the service
catches the client's errors unchanged.
"""

from __future__ import annotations

from typing import Any

from graphmem.errors import GraphMemError, InvalidInputError

__all__ = [
    "AuthenticationError", "BadInputError", "ClientError", "ConflictError", "ForbiddenError",
    "GraphQLError", "NotFoundError", "RateLimitedError", "ServerError", "TransportError",
    "UnavailableError", "error_from",
]


class ClientError(GraphMemError):
    """Root of the client's errors."""

    def __init__(self, message: str, *, code: str | None = None, field: str | None = None,
                 path: list[str | int] | None = None, status: int | None = None,
                 errors: list[dict[str, Any]] | None = None) -> None:
        Exception.__init__(self, message)
        self.message = message
        self.code = code
        self.field = field
        self.path = path
        self.status = status
        self.errors = errors or []

    def __str__(self) -> str:
        text = self.message
        if self.field and not text.startswith(f"{self.field}:"):
            text = f"{self.field}: {text}"
        return f"{text} ({self.code})" if self.code else text


class GraphQLError(ClientError):
    """The server answered with an error this client has no narrower class for."""


class AuthenticationError(GraphQLError):
    """No API key, or one the server does not know (``UNAUTHENTICATED``, HTTP 401)."""


class ForbiddenError(GraphQLError):
    """The key may not touch that user (``FORBIDDEN``); ``field`` names the userId field."""


class BadInputError(GraphQLError, InvalidInputError):  # type: ignore[misc]  # field: str
    """The server refused an input (``BAD_USER_INPUT``, or a malformed request);
    nothing was written. ``field`` names the input, e.g. ``input.validUntil``."""

    def __init__(self, message: str, **kwargs: Any) -> None:
        field = kwargs.get("field") or ""
        if field and message.startswith(f"{field}: "):  # the server's "field: why"
            message = message[len(field) + 2:]
        GraphQLError.__init__(self, message, **kwargs)
        self.field = field


class NotFoundError(GraphQLError):
    """The memory or user named does not exist for that user (``NOT_FOUND``)."""


class ConflictError(GraphQLError):
    """A write the conflict rules could not place (``CONFLICT``)."""


class UnavailableError(ClientError):
    """The server or its store is unavailable (HTTP 503, ``UNAVAILABLE``), after retries."""


class RateLimitedError(UnavailableError):
    """HTTP 429 after every retry."""


class TransportError(UnavailableError):
    """The server could not be reached (connection refused, DNS, timeout)."""


class ServerError(ClientError):
    """The server failed (``INTERNAL_SERVER_ERROR``, an HTTP 5xx, or an answer that is not
    GraphQL)."""


_BY_CODE: dict[str, type[ClientError]] = {
    "UNAUTHENTICATED": AuthenticationError,
    "FORBIDDEN": ForbiddenError,
    "BAD_USER_INPUT": BadInputError,
    "GRAPHQL_VALIDATION_FAILED": BadInputError,
    "GRAPHQL_PARSE_FAILED": BadInputError,
    "BAD_REQUEST": BadInputError,
    "QUERY_TOO_COMPLEX": BadInputError,
    "PAYLOAD_TOO_LARGE": BadInputError,
    "NOT_FOUND": NotFoundError,
    "CONFLICT": ConflictError,
    "UNAVAILABLE": UnavailableError,
    "INTERNAL_SERVER_ERROR": ServerError,
}


def error_from(errors: list[dict[str, Any]], status: int | None) -> ClientError:
    """The typed error for a GraphQL ``errors`` list (the first error decides)."""
    first = errors[0] if errors else {}
    ext = first.get("extensions") or {}
    code = ext.get("code")
    field = ext.get("field")
    message = str(first.get("message") or "request failed")
    cls = _BY_CODE.get(str(code), GraphQLError) if code else GraphQLError
    if status == 401 and cls is GraphQLError:
        cls = AuthenticationError
    return cls(message, code=code, field=field, path=first.get("path"), status=status,
               errors=errors)
