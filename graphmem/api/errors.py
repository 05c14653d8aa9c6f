"""Turning failures into client-safe GraphQL errors.

Expected errors carry a code (and the offending field) in ``extensions``; anything else is
logged here with its traceback and reaches the client only as ``internal error`` — never a
stack trace, a driver message or a query string.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

from graphql import GraphQLError
from graphql.language import (
    ArgumentNode,
    DocumentNode,
    Node,
    ObjectFieldNode,
    VariableDefinitionNode,
    Visitor,
    visit,
)
from strawberry.extensions import SchemaExtension

from graphmem.errors import (
    ConflictError,
    ForbiddenError,
    InvalidInputError,
    NotFoundError,
    UnavailableError,
)

log = logging.getLogger("graphmem.api")

INTERNAL = "internal error"


def client_error(error: GraphQLError, document: DocumentNode | None) -> GraphQLError:
    """The error as the client should see it."""
    original = error.original_error
    ext: dict[str, Any] = dict(error.extensions or {})
    message = error.message
    if isinstance(original, InvalidInputError):
        message = f"{original.field}: {original.message}"
        ext.update(code="BAD_USER_INPUT", field=original.field)
    elif isinstance(original, NotFoundError):
        ext.update(code="NOT_FOUND")
    elif isinstance(original, ForbiddenError):
        ext.update(code="FORBIDDEN", field=getattr(original, "field", "userId"))
    elif isinstance(original, ConflictError):
        ext.update(code="CONFLICT")
    elif isinstance(original, UnavailableError):
        log.warning("store unavailable: %s", original)
        message = "service unavailable, try again later"
        ext = {"code": "UNAVAILABLE"}
    elif original is not None and not isinstance(original, GraphQLError) \
            and (error.path is not None or not _is_coercion(message)):
        # Raised while resolving, and not on purpose (or a GraphMemError we do not explain,
        # e.g. a rejected store write): log it whole, tell the client nothing about it.
        where = ".".join(map(str, error.path)) if error.path else "the request"
        log.error("unexpected error in %s", where,
                  exc_info=(type(original), original, original.__traceback__))
        message, ext = INTERNAL, {"code": "INTERNAL_SERVER_ERROR"}
    elif error.path is None and ext.get("code"):
        pass  # coded where it was raised (request limits)
    elif error.path is None:
        ext.update(_request_error(error, document))
        field = ext.get("field")
        if ext.get("code") == "BAD_USER_INPUT" and field and f"'{field}'" not in message \
                and not message.startswith(f"{field}:"):
            message = f"{field}: {message}"
    return GraphQLError(message, nodes=error.nodes, source=error.source,
                        positions=error.positions, path=error.path, original_error=None,
                        extensions=ext or None)


# graphql-core 3.3: "Variable '$in' has invalid value at .occurredAt: ..." (3.2: "got invalid
# value ... at 'in.occurredAt'"); a missing input field: "... to include required field 'x'".
_VAR_AT = re.compile(r"Variable '\$(\w+)' has invalid value at ([\w.\[\]]+):")
_VAR_AT_OLD = re.compile(r"Variable '\$\w+' got invalid value .*? at '([\w.\[\]]+)'")
_REQUIRED = re.compile(r"to include required field '(\w+)'")
_VAR = re.compile(r"Variable '\$(\w+)'")
_ARG = re.compile(r"[Aa]rgument '(\w+)'")
_FIELD = re.compile(r"[Ff]ield '(?:\w+\.)?(\w+)'")


def _is_coercion(message: str) -> bool:
    """An input value the schema rejected (graphql-core quotes the scalar's own message)."""
    return (message.startswith("Expected value of type") or message.startswith("Variable '$")
            or "got invalid value" in message or "has invalid value" in message)


def _request_error(error: GraphQLError, document: DocumentNode | None) -> dict[str, Any]:
    """Code and field of an error found before execution (syntax, validation, coercion)."""
    msg = error.message
    if msg.startswith("Syntax Error"):
        return {"code": "GRAPHQL_PARSE_FAILED"}
    is_value = (error.original_error is not None or "Expected value of type" in msg
                or "invalid value" in msg or "of required type" in msg
                or "was not provided" in msg or "Expected type" in msg)
    field = None
    if m := _VAR_AT.search(msg):
        field = m.group(1) + m.group(2)
    elif m := _VAR_AT_OLD.search(msg):
        field = m.group(1)
    elif document is not None and error.nodes:
        field = _field_path(document, error.nodes[0])
    if field is None:
        for rx in (_VAR, _ARG, _FIELD):
            if m := rx.search(msg):
                field = m.group(1)
                break
    if field is not None and (m := _REQUIRED.search(msg)):
        field = f"{field}.{m.group(1)}"
    out: dict[str, Any] = {"code": "BAD_USER_INPUT" if is_value
                           else "GRAPHQL_VALIDATION_FAILED"}
    if field:
        out["field"] = field
    return out


class _PathFinder(Visitor):
    """Finds the argument/input-field path leading to one node of the document."""

    def __init__(self, target: Node) -> None:
        super().__init__()
        self.target = target
        self.stack: list[str] = []
        self.found: str | None = None

    def enter(self, node: Any, *_: Any) -> Any:
        if self.found is not None:
            return self.BREAK
        if isinstance(node, ArgumentNode | ObjectFieldNode):
            self.stack.append(node.name.value)
        elif isinstance(node, VariableDefinitionNode):
            self.stack.append(node.variable.name.value)
        if node is self.target or (node.loc is not None and self.target.loc is not None
                                   and node.loc.start == self.target.loc.start
                                   and node.loc.end == self.target.loc.end
                                   and type(node) is type(self.target)):
            if self.stack:
                self.found = ".".join(self.stack)
            return self.BREAK
        return None

    def leave(self, node: Any, *_: Any) -> Any:
        if isinstance(node, ArgumentNode | ObjectFieldNode | VariableDefinitionNode):
            self.stack.pop()
        return None


def _field_path(document: DocumentNode, node: Node) -> str | None:
    finder = _PathFinder(node)
    visit(document, finder)
    return finder.found


class ClientErrors(SchemaExtension):
    """Maps every error of an operation through ``client_error`` (after execution)."""

    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        errors = getattr(result, "errors", None)
        if result is not None and errors:
            doc = self.execution_context.graphql_document
            result.errors = [client_error(e, doc) for e in errors]
        pre = self.execution_context.pre_execution_errors
        if pre:
            doc = self.execution_context.graphql_document
            self.execution_context.pre_execution_errors = [client_error(e, doc) for e in pre]
