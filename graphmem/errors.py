"""The error hierarchy: one root, a few meaningful children.

The store translates driver errors into these; the API turns them into GraphQL errors
that name the offending field and never carry a stack trace or a query string.
"""

from __future__ import annotations


class GraphMemError(Exception):
    """Root of every error graphmem raises on purpose."""


class InvalidInputError(GraphMemError):
    """The caller sent something unusable; nothing was written.

    ``field`` names the offending input field (``"validUntil"``, ``"input.userId"``...).
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class NotFoundError(GraphMemError):
    """A memory (or user) the caller named does not exist for that user."""

    def __init__(self, what: str, ident: str) -> None:
        super().__init__(f"{what} not found: {ident}")
        self.what = what
        self.ident = ident


class ConflictError(GraphMemError):
    """The write contradicts the stored state in a way the rules cannot resolve."""


class UnavailableError(GraphMemError):
    """A backing service (store, model endpoint) cannot be reached or failed."""


class ForbiddenError(GraphMemError):
    """The caller's credentials do not allow access to that user."""
