"""What the sync and async clients share about HTTP: the endpoint, headers, the retry
policy and reading an answer into data or a typed error."""

from __future__ import annotations

import random
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

import graphmem
from graphmem.client._errors import (
    ClientError,
    RateLimitedError,
    ServerError,
    TransportError,
    UnavailableError,
    error_from,
)
from graphmem.model import utcnow

#: statuses that say "not now": the request was not processed, so sending it again is safe
RETRY_STATUS = frozenset({429, 502, 503, 504})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how long to wait before sending a refused request again.

    ``retries`` extra attempts (0: none) after a 429/502/503/504, an ``UNAVAILABLE``
    GraphQL error or a connection that could not be made; waits start at ``backoff``
    seconds and double up to ``max_backoff`` (with jitter), or follow the server's
    ``Retry-After`` when it is shorter than ``max_backoff``. A read timeout is retried for
    queries only: a mutation may have been applied."""

    retries: int = 3
    backoff: float = 0.25
    max_backoff: float = 8.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        if retry_after is not None:
            return max(0.0, min(retry_after, self.max_backoff))
        base = min(self.backoff * (2 ** attempt), self.max_backoff)
        return base * (0.5 + random.random() / 2)


def endpoint(url: str) -> str:
    """``http://host:port`` or ``.../graphql`` -> the GraphQL endpoint."""
    url = url.rstrip("/")
    return url if url.endswith("/graphql") else url + "/graphql"


def headers(api_key: str | None, extra: dict[str, str] | None) -> dict[str, str]:
    out = {"user-agent": f"graphmem-client/{graphmem.__version__}",
           "accept": "application/json"}
    if api_key:
        out["authorization"] = f"Bearer {api_key}"
    out.update(extra or {})
    return out


def timeout(seconds: float) -> httpx.Timeout:
    return httpx.Timeout(seconds, connect=min(seconds, 10.0))


def retry_after(resp: httpx.Response) -> float | None:
    value = resp.headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        return (parsedate_to_datetime(value) - utcnow()).total_seconds()
    except (TypeError, ValueError):
        return None


def read(resp: httpx.Response) -> dict[str, Any]:
    """The ``data`` of a GraphQL answer, or the typed error it carries."""
    if resp.status_code in RETRY_STATUS:
        cls = RateLimitedError if resp.status_code == 429 else UnavailableError
        err = cls(f"{resp.request.url} answered {resp.status_code}", status=resp.status_code,
                  code="RATE_LIMITED" if resp.status_code == 429 else "UNAVAILABLE")
        err.retry_after = retry_after(resp)  # type: ignore[attr-defined]
        raise err
    try:
        body = resp.json()
    except ValueError:
        raise ServerError(f"{resp.request.url} answered {resp.status_code} with no GraphQL "
                          f"response", status=resp.status_code) from None
    if not isinstance(body, dict):
        raise ServerError("the answer is not a GraphQL response", status=resp.status_code)
    if body.get("errors"):
        raise error_from(body["errors"], resp.status_code)
    data = body.get("data")
    if resp.status_code != 200 or not isinstance(data, dict):
        raise ServerError(f"{resp.request.url} answered {resp.status_code}",
                          status=resp.status_code)
    return data


def classify(exc: Exception, *, mutation: bool) -> tuple[ClientError, bool]:
    """The client error for a failed attempt and whether sending again is safe."""
    if isinstance(exc, UnavailableError):
        return exc, True
    if isinstance(exc, ClientError):
        return exc, False
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        return TransportError(f"cannot connect: {exc}", code="UNREACHABLE"), True
    if isinstance(exc, httpx.TimeoutException):
        return TransportError(f"no answer in time: {type(exc).__name__}",
                              code="TIMEOUT"), not mutation
    if isinstance(exc, httpx.TransportError):
        return TransportError(f"connection failed: {exc}", code="UNREACHABLE"), not mutation
    raise exc


def wait_for(err: ClientError, policy: RetryPolicy, attempt: int) -> float:
    return policy.delay(attempt, getattr(err, "retry_after", None))
