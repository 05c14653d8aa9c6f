"""Reading one GraphQL operation off an HTTP request, strictly.

GET carries it in the query string, POST in an ``application/json`` body; nothing else is
accepted. Anything ambiguous or malformed (a parameter given twice, an unknown parameter,
a query string on a POST, a batch, bytes that are not UTF-8, JSON that is not an object,
nested too deeply, with numbers Python will not convert or NaN) is a ``BadRequest``: a 400
with a JSON GraphQL error body and a code, never a Python error.
"""

from __future__ import annotations

import json
import math
from typing import Any
from urllib.parse import parse_qsl

from starlette.responses import JSONResponse
from strawberry.http import GraphQLRequestData

from graphmem.errors import GraphMemError

#: JSON nesting allowed in ``variables`` / ``extensions`` (graphmem's inputs need 4)
MAX_JSON_DEPTH = 32
FIELDS = ("query", "variables", "operationName", "extensions")


class BadRequest(GraphMemError):
    """The HTTP request does not hold one well-formed GraphQL operation."""

    def __init__(self, message: str, status: int = 400, code: str = "BAD_REQUEST") -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code


def error_response(status: int, message: str, code: str) -> JSONResponse:
    """A request-level failure as GraphQL-over-HTTP answers it: no data, one coded error."""
    return JSONResponse({"data": None, "errors": [{"message": message,
                                                  "extensions": {"code": code}}]},
                        status_code=status)


def from_query_string(raw: bytes) -> GraphQLRequestData:
    """The operation of a GET: each known parameter at most once, nothing else."""
    try:
        text = raw.decode("ascii")
        pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=False,
                          encoding="utf-8", errors="strict", max_num_fields=len(FIELDS))
    except UnicodeError:
        raise BadRequest("the query string is not valid percent-encoded UTF-8") from None
    except ValueError:
        raise BadRequest(f"too many query string parameters: send {', '.join(FIELDS)}") \
            from None
    params: dict[str, str] = {}
    for name, value in pairs:
        if name not in FIELDS:
            raise BadRequest(f"unknown query string parameter {name[:40]!r}: send "
                             f"{', '.join(FIELDS)}")
        if name in params:
            raise BadRequest(f"query string parameter {name!r} is given more than once")
        params[name] = value
    data: dict[str, Any] = dict(params)
    for name in ("variables", "extensions"):
        if name in data:
            data[name] = _json(data[name], name) if data[name] else None
    return _operation(data)


def from_body(content_type: str | None, body: bytes, query_string: bytes) -> GraphQLRequestData:
    """The operation of a POST: one JSON object in a UTF-8 ``application/json`` body."""
    if query_string:
        raise BadRequest("a POST carries its operation in the body: the URL must have no "
                         "query string")
    media, _, params = (content_type or "").partition(";")
    if media.strip().lower() != "application/json":
        raise BadRequest("send the operation as 'Content-Type: application/json' (or with "
                         "GET)", status=400)
    charset = params.strip().lower()
    if charset and charset.replace(" ", "") not in ("charset=utf-8", "charset=\"utf-8\""):
        raise BadRequest("the body must be UTF-8")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("the body is not valid UTF-8") from None
    data = _json(text, "body")
    if isinstance(data, list):
        raise BadRequest("batched operations are not supported: send one per request")
    if not isinstance(data, dict):
        raise BadRequest("the body must be a JSON object {query, variables, operationName}")
    unknown = [k for k in data if k not in FIELDS]
    if unknown:
        raise BadRequest(f"unknown key {unknown[0][:40]!r} in the body: send "
                         f"{', '.join(FIELDS)}")
    return _operation(data)


def _operation(data: dict[str, Any]) -> GraphQLRequestData:
    query = data.get("query")
    if not isinstance(query, str) or not query.strip():
        raise BadRequest("no GraphQL query in the request: 'query' must be a non-empty string")
    variables, extensions = data.get("variables"), data.get("extensions")
    if variables is not None and not isinstance(variables, dict):
        raise BadRequest("'variables' must be a JSON object")
    if extensions is not None and not isinstance(extensions, dict):
        raise BadRequest("'extensions' must be a JSON object")
    name = data.get("operationName")
    if name is not None and not isinstance(name, str):
        raise BadRequest("'operationName' must be a string")
    return GraphQLRequestData(query=query, variables=variables, operation_name=name or None,
                              extensions=extensions, protocol="http")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("a number out of range is not JSON")
    return value


def _json(text: str, what: str) -> Any:
    try:
        value = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except RecursionError:
        raise BadRequest(f"{what}: JSON nested too deeply") from None
    except ValueError as e:
        # JSONDecodeError, NaN/Infinity/1e999, an integer past Python's digit limit; only the
        # position is safe and useful to echo.
        where = f" (line {e.lineno}, column {e.colno})" \
            if isinstance(e, json.JSONDecodeError) else ""
        raise BadRequest(f"{what}: not valid JSON{where}") from None
    _check_values(value, what)
    return value


def _check_values(value: Any, what: str) -> None:
    """No nesting past ``MAX_JSON_DEPTH``. (Text is checked where it is used: a lone
    surrogate in an input field is that field's ``BAD_USER_INPUT``.)"""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth >= MAX_JSON_DEPTH:
                raise BadRequest(f"{what}: JSON nested deeper than {MAX_JSON_DEPTH} levels")
            stack.extend((child, depth + 1)
                         for child in (item.values() if isinstance(item, dict) else item))
