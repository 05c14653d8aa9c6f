"""Helpers for the API tests: the real ASGI app over a service, a GraphQL client, a store
proxy that counts calls."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from graphmem.api.app import create_app
from graphmem.embed import HashingEmbedder
from graphmem.service import MemoryService
from graphmem.settings import Settings

from .conftest import DIM, FakeClock, make_settings


class Api:
    """A GraphQL client over the app (``data`` asserts success, ``errors`` expects failure)."""

    def __init__(self, client: TestClient, headers: dict[str, str] | None = None) -> None:
        self.client = client
        self.headers = headers or {}

    def post(self, query: str, variables: dict[str, Any] | None = None,
             headers: dict[str, str] | None = None) -> Any:
        return self.client.post("/graphql", json={"query": query, "variables": variables or {}},
                                headers={**self.headers, **(headers or {})})

    def data(self, query: str, variables: dict[str, Any] | None = None,
             headers: dict[str, str] | None = None) -> dict[str, Any]:
        resp = self.post(query, variables, headers)
        body = resp.json()
        assert resp.status_code == 200, body
        assert not body.get("errors"), body["errors"]
        return body["data"]

    def errors(self, query: str, variables: dict[str, Any] | None = None,
               headers: dict[str, str] | None = None) -> list[dict[str, Any]]:
        resp = self.post(query, variables, headers)
        body = resp.json()
        assert body.get("errors"), body
        return body["errors"]


def make_service(store: Any, clock: FakeClock | None = None, **overrides: Any) -> MemoryService:
    return MemoryService(make_settings(**overrides), store, HashingEmbedder(DIM),
                         clock=clock or FakeClock())


@contextlib.contextmanager
def serve_api(service: MemoryService, settings: Settings | None = None,
              headers: dict[str, str] | None = None) -> Iterator[Api]:
    """The real app (lifespan included) over ``service``, which the caller keeps owning."""
    app = create_app(settings or service.settings, service)
    with TestClient(app) as client:
        yield Api(client, headers)


class CountingStore:
    """Delegates to a real store and counts read calls: (method, label or '') -> n."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.calls: Counter[tuple[str, str]] = Counter()
        self.name = inner.name

    def reset(self) -> None:
        self.calls.clear()

    def __getattr__(self, attr: str) -> Any:
        target = getattr(self._inner, attr)
        if not callable(target):
            return target

        def counted(*args: Any, **kwargs: Any) -> Any:
            label = args[0] if args and attr in ("nodes", "export_nodes", "count",
                                                  "vector_search", "fulltext_search") else ""
            self.calls[(attr, str(label))] += 1
            return target(*args, **kwargs)

        return counted


def error_of(errors: list[dict[str, Any]]) -> dict[str, Any]:
    assert len(errors) == 1, errors
    return errors[0]


@pytest.fixture
def api(store: Any, clock: FakeClock) -> Iterator[Api]:
    """The real server over a service on each store (a test module imports it to use it)."""
    with serve_api(make_service(store, clock)) as client:
        yield client


def assert_newer_version_first(items: list[dict[str, Any]], new: str, old: str,
                               note: str) -> None:
    """Recall's items (``id status supersededBy versionNote``): ``new`` above ``old``, and
    ``old`` marked SUPERSEDED by ``new`` with ``note`` in its version note."""
    ids = [i["id"] for i in items]
    assert ids.index(new) < ids.index(old)
    earlier = items[ids.index(old)]
    assert earlier["status"] == "SUPERSEDED" and earlier["supersededBy"] == [new]
    assert note in earlier["versionNote"]
