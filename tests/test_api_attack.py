"""The HTTP/GraphQL edge attacked from outside, against a real uvicorn server.

Auth cannot be bypassed (encodings, methods, paths, transports), one request cannot block
the server (cost budget, fragment cycles), malformed requests get a clean 400 with a code,
oversized bodies a 413, and the access log never holds a query string.
"""

from __future__ import annotations

import http.client
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import uvicorn
from graphql import (
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
)
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from graphmem.api.app import create_app
from graphmem.api.schema import build_schema
from graphmem.service import MemoryService
from graphmem.settings import Settings
from graphmem.store.falkor import FalkorStore

from .api_support import make_service
from .conftest import make_settings
from .test_api_serve import child_env, free_port, graphmem_command

SECRET = "bob-keeps-his-pin-in-the-blue-book"


class LiveServer:
    """The real app under uvicorn on a free loopback port, in a background thread."""

    def __init__(self, service: MemoryService, settings: Settings,
                 access_log: bool = False) -> None:
        self.port = free_port()
        self.host = "127.0.0.1"
        self.url = f"http://{self.host}:{self.port}"
        config = uvicorn.Config(create_app(settings, service), host=self.host, port=self.port,
                                lifespan="on", access_log=access_log,
                                log_level="info" if access_log else "warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "server did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)

    def request(self, method: str, target: str, body: bytes | None = None,
                headers: dict[str, str] | None = None, timeout: float = 30,
                chunked: bool = False) -> tuple[int, dict[str, str], bytes]:
        """One raw request: ``target`` is sent byte for byte (no normalisation)."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            if chunked:
                assert body is not None
                chunks = (body[i:i + 65536] for i in range(0, len(body), 65536))
                conn.request(method, target, body=chunks, headers=headers or {},
                             encode_chunked=True)
            else:
                conn.request(method, target, body=body, headers=headers or {})
            resp = conn.getresponse()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
        finally:
            conn.close()

    def post(self, query: str, variables: dict[str, Any] | None = None,
             key: str | None = "key-a", timeout: float = 30) -> tuple[int, Any]:
        headers = {"content-type": "application/json"}
        if key:
            headers["authorization"] = f"Bearer {key}"
        status, _, body = self.request("POST", "/graphql", json.dumps(
            {"query": query, "variables": variables or {}}).encode(), headers, timeout)
        return status, json.loads(body)


@pytest.fixture(scope="module")
def users() -> tuple[str, str]:
    stamp = f"{time.time_ns()}"
    return f"alice-{stamp}", f"bob-{stamp}"


@pytest.fixture(scope="module")
def live(embedded_store: FalkorStore, users: tuple[str, str]) -> Iterator[LiveServer]:
    alice, bob = users
    settings = make_settings(api_keys={"key-a": [alice], "key-b": [bob]})
    with LiveServer(make_service(embedded_store), settings) as server:
        status, out = server.post(
            """mutation($u: ID!, $c: String!) { addEpisode(input: {userId: $u,
               occurredAt: "2025-01-01T10:00:00Z", content: $c}) { episode { id } } }""",
            {"u": bob, "c": f"My PIN: {SECRET}"}, key="key-b")
        assert status == 200 and not out.get("errors"), out
        yield server


def _code(body: bytes) -> str:
    return json.loads(body)["errors"][0]["extensions"]["code"]


# --------------------------------------------------------------------------- finding 1


def _episodes_of(user: str) -> str:
    return '{episodes(userId:"USER"){items{content}}}'.replace("USER", user)


def test_no_key_no_data_whatever_the_encoding(live: LiveServer, users: tuple[str, str]) -> None:
    _, bob = users
    q = quote(_episodes_of(bob), safe="")
    json_body = json.dumps({"query": _episodes_of(bob)}).encode()
    multipart = (b"--XX\r\nContent-Disposition: form-data; name=\"operations\"\r\n\r\n"
                 + json_body + b"\r\n--XX\r\nContent-Disposition: form-data; name=\"map\""
                 b"\r\n\r\n{}\r\n--XX--\r\n")
    html = {"accept": "text/html"}
    attempts: list[tuple[str, str, bytes | None, dict[str, str]]] = [
        ("GET", f"/graphql?%71uery={q}", None, {}),
        ("GET", f"/graphql?%71uery={q}", None, html),
        ("GET", f"/graphql?query={q}", None, html),
        ("GET", f"/graphql?qu%65ry={q}&query=", None, {}),
        ("GET", f"/graphql?query=&query={q}", None, {}),
        ("GET", f"/graphql?x=1;query={q}", None, {}),
        ("GET", f"/graphql?x=1&%71%75%65%72%79={q}", None, html),
        ("GET", f"/graphql?query={q}&variables=%7B%7D", None, {"accept": "*/*"}),
        ("GET", "/graphql", json_body, {"content-type": "application/json"}),
        ("POST", "/graphql", json_body, {"content-type": "application/json"}),
        ("POST", f"/graphql?query={q}", None, {}),
        ("POST", f"/graphql?query={q}", b"{}", {"content-type": "application/json"}),
        ("POST", "/graphql", multipart, {"content-type": "multipart/form-data; boundary=XX"}),
        ("POST", "/graphql", _episodes_of(bob).encode(),
         {"content-type": "application/graphql"}),
        ("POST", "/graphql", json_body, {"content-type": "text/plain"}),
        ("HEAD", f"/graphql?query={q}", None, {}),
        ("OPTIONS", "/graphql", None, {}),
        ("PUT", "/graphql", json_body, {"content-type": "application/json"}),
        ("PATCH", "/graphql", json_body, {"content-type": "application/json"}),
        ("DELETE", f"/graphql?query={q}", None, {}),
    ]
    for method, target, body, headers in attempts:
        status, _, out = live.request(method, target, body, headers)
        assert SECRET.encode() not in out, (method, target)
        assert status == 401, (method, target, status, out[:200])
        if method != "HEAD":
            assert _code(out) == "UNAUTHENTICATED", (method, target)
    # Other spellings of the path never execute anything either.
    for target in (f"/graphql/?query={q}", f"//graphql?query={q}", f"/GRAPHQL?query={q}",
                   f"/%67raphql?query={q}", f"/graphql%2F?query={q}", f"/./graphql?query={q}",
                   f"/x/../graphql?query={q}", f"/graphql;x?query={q}"):
        for method in ("GET", "POST"):
            status, _, out = live.request(method, target, json_body,
                                          {"content-type": "application/json"})
            assert SECRET.encode() not in out, (method, target)
            assert status != 200 or b"graphiql" in out.lower(), (method, target, status)


def test_ide_page_only_for_a_bare_browser_get(live: LiveServer) -> None:
    status, headers, page = live.request("GET", "/graphql", headers={"accept": "text/html"})
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert b"graphiql" in page.lower() and SECRET.encode() not in page
    # Not a browser, or anything in the query string: a key is needed.
    for target, accept in (("/graphql", "application/json"), ("/graphql", "*/*"),
                           ("/graphql?x", "text/html"), ("/graphql?query=", "text/html")):
        status, _, out = live.request("GET", target, headers={"accept": accept})
        assert status == 401, (target, accept, status)


def test_websocket_is_refused(live: LiveServer, embedded_store: FalkorStore,
                              users: tuple[str, str]) -> None:
    # Over the wire: no upgrade happens.
    with socket.create_connection((live.host, live.port), timeout=10) as sock:
        sock.sendall(b"GET /graphql HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                     b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     b"Sec-WebSocket-Version: 13\r\n"
                     b"Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n")
        head = sock.recv(4096)
    assert not head.startswith(b"HTTP/1.1 101"), head
    # At the ASGI level (a server with a WebSocket library installed passes it on): the
    # connection is closed before it is accepted, with or without a key.
    settings = make_settings(api_keys={"key-a": [users[0]]})
    app = create_app(settings, make_service(embedded_store))
    with TestClient(app) as client:
        for headers in ({}, {"authorization": "Bearer key-a"}):
            with pytest.raises(WebSocketDisconnect), client.websocket_connect(
                    "/graphql", subprotocols=["graphql-transport-ws"],
                    headers=headers) as ws:
                ws.send_json({"type": "connection_init"})
                ws.receive_json()


def _named(t: Any) -> Any:
    while isinstance(t, GraphQLNonNull | GraphQLList):
        t = t.of_type
    return t


def _takes_user(t: GraphQLInputType) -> bool:
    named = _named(t)
    return isinstance(named, GraphQLInputObjectType) and "userId" in named.fields


def _value(t: Any, user: str, name: str = "") -> str:
    """A GraphQL literal of type ``t``: required fields filled, every userId = ``user``."""
    if isinstance(t, GraphQLNonNull):
        return _value(t.of_type, user, name)
    if isinstance(t, GraphQLList):
        return f"[{_value(t.of_type, user, name)}]"
    if isinstance(t, GraphQLInputObjectType):
        parts = [f"{n}: {_value(f.type, user, n)}" for n, f in t.fields.items()
                 if n == "userId" or isinstance(f.type, GraphQLNonNull)]
        return "{" + ", ".join(parts) + "}"
    if isinstance(t, GraphQLEnumType):
        return next(iter(t.values))
    assert isinstance(t, GraphQLScalarType), t
    if name == "userId":
        return json.dumps(user)
    return {"Int": "1", "Float": "1.0", "Boolean": "false",
            "DateTime": '"2025-01-01T00:00:00Z"'}.get(t.name, '"x"')


def _user_fields() -> list[tuple[str, str, GraphQLField]]:
    schema = build_schema()._schema
    out = []
    for kind, root in (("query", schema.query_type), ("mutation", schema.mutation_type)):
        assert isinstance(root, GraphQLObjectType)
        for name, field in root.fields.items():
            if any(n == "userId" or _takes_user(a.type) for n, a in field.args.items()):
                out.append((kind, name, field))
    return out


def test_a_key_reads_and_writes_only_its_users_on_every_field(
        live: LiveServer, users: tuple[str, str]) -> None:
    alice, bob = users
    fields = _user_fields()
    names = {name for _, name, _ in fields}
    # Every root field is scoped to a user (a new field without userId fails here too).
    schema = build_schema()._schema
    assert names == set(schema.query_type.fields) | set(schema.mutation_type.fields)  # type: ignore[union-attr]
    assert {"recall", "episodes", "relations", "addEpisode", "addRelations",
            "forget"} <= names
    _, before = live.post(_episodes_of(bob), key="key-b")
    for kind, name, field in fields:
        args = ", ".join(f"{n}: {_value(a.type, bob, n)}" for n, a in field.args.items()
                         if n == "userId" or isinstance(a.type, GraphQLNonNull))
        selection = "" if isinstance(_named(field.type), GraphQLScalarType) \
            else " { __typename }"
        status, out = live.post(f"{kind} {{ {name}({args}){selection} }}")
        assert status == 200, (name, out)
        assert out["data"] is None and len(out["errors"]) == 1, (name, out)
        assert out["errors"][0]["extensions"]["code"] == "FORBIDDEN", (name, out)
        assert SECRET not in json.dumps(out)
    # Nothing of bob's was touched.
    _, after = live.post(_episodes_of(bob), key="key-b")
    assert after == before and SECRET in json.dumps(after)
    _, mine = live.post(_episodes_of(alice))
    assert mine == {"data": {"episodes": {"items": []}}}


# --------------------------------------------------------------------------- finding 2


def _chain(levels: int, user: str) -> str:
    parts = ["query { ...F0 }"]
    parts += [f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(levels)]
    parts.append(f'fragment F{levels} on Query {{ episodes(userId: "{user}") {{ total }} }}')
    return " ".join(parts)


def test_fragment_bomb_is_rejected_fast(live: LiveServer, users: tuple[str, str]) -> None:
    alice, _ = users
    q = _chain(25, alice)
    assert len(q) < 1100
    started = time.monotonic()
    status, out = live.post(q, timeout=10)
    assert time.monotonic() - started < 1.0
    assert status == 200 and out["data"] is None
    err = out["errors"][0]
    assert err["extensions"]["code"] == "QUERY_TOO_COMPLEX", err
    assert "cost" in err["message"] and "GRAPHMEM_MAX_QUERY_COST" in err["message"]
    # A short chain is an ordinary query.
    status, out = live.post(_chain(3, alice))
    assert out == {"data": {"episodes": {"total": 0}}}


def test_graphiql_introspection_fits_the_default_budget(live: LiveServer) -> None:
    from graphql import get_introspection_query

    q = get_introspection_query(descriptions=True, specified_by_url=True,
                                directive_is_repeatable=True, schema_description=True,
                                input_value_deprecation=True)
    status, out = live.post(q)
    assert status == 200 and not out.get("errors"), out
    assert out["data"]["__schema"]["queryType"]["name"] == "Query"


def test_fragment_cycle_is_rejected(live: LiveServer, users: tuple[str, str]) -> None:
    q = ('query { ...A } fragment A on Query { ...B stats(userId: "USER") { episodes } } '
         "fragment B on Query { ...A }").replace("USER", users[0])
    started = time.monotonic()
    status, out = live.post(q, timeout=10)
    assert time.monotonic() - started < 1.0
    assert out["data"] is None
    assert out["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED", out
    assert "cycle" in out["errors"][0]["message"].lower() or \
        "spread itself" in out["errors"][0]["message"]


def test_cost_budget_counts_list_sizes(embedded_store: FalkorStore, user: str) -> None:
    settings = make_settings(max_query_cost=120)
    with LiveServer(make_service(embedded_store), settings) as server:
        small = '{ episodes(userId: "U", limit: 10) { items { id content } } }'.replace("U", user)
        assert server.post(small, key=None)[1] == {"data": {"episodes": {"items": []}}}
        big = '{ episodes(userId: "U", limit: 100) { items { id content } } }'.replace("U", user)
        _, out = server.post(big, key=None)
        assert out["errors"][0]["extensions"]["code"] == "QUERY_TOO_COMPLEX", out
        # Variables count as well as literals.
        q = 'query($n: Int!) { episodes(userId: "U", limit: $n) { items { id } } }'.replace(
            "U", user)
        assert server.post(q, {"n": 10}, key=None)[1]["data"] is not None
        _, out = server.post(q, {"n": 1000}, key=None)
        assert out["errors"][0]["extensions"]["code"] == "QUERY_TOO_COMPLEX", out


class _SlowStore:
    """A real store whose episode reads take ``delay`` seconds (health checks do not)."""

    def __init__(self, inner: Any, delay: float) -> None:
        self._inner = inner
        self.delay = delay
        self.name = inner.name

    def __getattr__(self, attr: str) -> Any:
        target = getattr(self._inner, attr)
        if attr == "count" or not callable(target):
            return target

        def slow(*args: Any, **kwargs: Any) -> Any:
            time.sleep(self.delay)
            return target(*args, **kwargs)

        return slow


def test_health_answers_while_a_slow_request_runs(embedded_store: FalkorStore,
                                                  user: str) -> None:
    service = make_service(_SlowStore(embedded_store, 3.0))
    with LiveServer(service, service.settings) as server:
        result: dict[str, Any] = {}

        def slow() -> None:
            result["out"] = server.post(_episodes_of(user), key=None)

        worker = threading.Thread(target=slow)
        worker.start()
        time.sleep(0.5)
        started = time.monotonic()
        status, _, body = server.request("GET", "/health", timeout=10)
        took = time.monotonic() - started
        assert worker.is_alive(), "the slow request finished too early to prove anything"
        assert status == 200 and json.loads(body)["status"] == "ok"
        assert took < 1.5, took
        worker.join(30)
        assert result["out"][1] == {"data": {"episodes": {"items": []}}}


# --------------------------------------------------------------------------- finding 3


BAD_BODIES: list[bytes] = [
    b"null", b'"query"', b"42", b"[]", b"[{}]", b"true", b"{}", b"",
    b"\xff\xfe{\"query\": \"{ __typename }\"}",
    b'{"query": "{ __typename }", "variables": {"x": ' + b"9" * 5000 + b"}}",
    b'{"query": "{ __typename }", "variables": {"x": ' + b"[" * 100_000 + b"]" * 100_000
    + b"}}",
    b'{"query": "{ __typename }", "extensions": {"x": ' + b"{\"a\":" * 100_000 + b"1"
    + b"}" * 100_000 + b"}}",
    b'{"query": "{ __typename }", "variables": 42}',
    b'{"query": "{ __typename }", "variables": [1]}',
    b'{"query": "{ __typename }", "variables": "x"}',
    b'{"query": "{ __typename }", "extensions": "x"}',
    b'{"query": 42}', b'{"query": ["{ __typename }"]}', b'{"query": {"a": 1}}',
    b'{"query": "{ __typename }", "operationName": 42}',
    b'{"query": "{ __typename }", "variables": {"x": NaN}}',
    b'{"query": "{ __typename }", "variables": {"x": 1e999999}}',
    b'{"query": "{ __typename }"',
]


def _assert_clean_400(status: int, body: bytes, what: object) -> None:
    assert status == 400, (what, status, body[:300])
    out = json.loads(body)
    assert out["data"] is None, what
    err = out["errors"][0]
    assert err["extensions"]["code"] == "BAD_REQUEST", (what, out)
    text = json.dumps(out)
    for leak in ("Traceback", "Error:", "Exception", "object has no attribute", ".py",
                 "recursion", "Internal Server Error"):
        assert leak not in text, (what, out)


def test_malformed_posts_are_clean_400s(live: LiveServer) -> None:
    headers = {"content-type": "application/json", "authorization": "Bearer key-a"}
    for body in BAD_BODIES:
        status, _, out = live.request("POST", "/graphql", body, headers)
        _assert_clean_400(status, out, body[:60])
    for content_type in ("text/plain", "application/graphql", "multipart/form-data; boundary=X",
                         "application/x-www-form-urlencoded", ""):
        status, _, out = live.request("POST", "/graphql", b'{"query": "{ __typename }"}',
                                      {"authorization": "Bearer key-a",
                                       "content-type": content_type})
        _assert_clean_400(status, out, content_type)
    # A lone surrogate in the document: a coded GraphQL error, not a server error.
    status, _, out = live.request("POST", "/graphql", b'{"query": "{ \\ud800 }"}', headers)
    assert status < 500 and json.loads(out)["errors"][0]["extensions"]["code"], out
    # The server is still fine.
    assert live.post("{ __typename }")[1] == {"data": {"__typename": "Query"}}


def test_malformed_gets_are_clean_400s(live: LiveServer) -> None:
    headers = {"authorization": "Bearer key-a"}
    tn = quote("{ __typename }")
    for qs in (f"query={tn}&variables=null%5B", f"query={tn}&variables=42",
               f"query={tn}&variables=%5B%5D", f"query={tn}&variables=%22x%22",
               f"query={tn}&variables=" + quote('{"x": ' + "9" * 5000 + "}"),
               f"query={tn}&variables=" + "%5B" * 3000 + "%5D" * 3000,
               f"query={tn}&extensions=42", f"query={tn}&query={tn}",
               f"query=%FF%FE{tn}", "query=", "variables=%7B%7D", f"query={tn}&bogus=1",
               f"query={tn}&variables=%7B%22x%22%3A%20NaN%7D", "%ff=1",
               "query=" + quote('mutation { forget(userId: "x", id: "y") }')):
        status, _, out = live.request("GET", f"/graphql?{qs}", headers=headers)
        _assert_clean_400(status, out, qs[:80])
    status, _, out = live.request("GET", f"/graphql?query={tn}", headers=headers)
    assert (status, json.loads(out)) == (200, {"data": {"__typename": "Query"}})


# --------------------------------------------------------------------------- finding 12


def test_empty_or_odd_selections_get_a_code(live: LiveServer, users: tuple[str, str]) -> None:
    for q in ("{}", "{ }", "query {}", "query { ...F } fragment F on Query { __typename }",
              "{ __typename ...on Query { __typename } }", "query { ...Missing }",
              "fragment F on Query { __typename }", "query A { __typename } query A { "
              "__typename }", '{ stats(userId: "U") {} }'.replace("U", users[0])):
        status, out = live.post(q)
        if not out.get("errors"):
            continue  # a valid document: fine
        for err in out["errors"]:
            assert err.get("extensions", {}).get("code"), (q, out)
            assert "iterable" not in err["message"], (q, out)


def test_oversized_bodies_get_413(live: LiveServer, users: tuple[str, str]) -> None:
    big = json.dumps({"query": _episodes_of(users[0]), "variables": {"x": "y" * 5_000_000}})
    headers = {"content-type": "application/json", "authorization": "Bearer key-a"}
    for chunked in (False, True):
        status, _, out = live.request("POST", "/graphql", big.encode(), headers,
                                      chunked=chunked)
        assert status == 413, chunked
        assert _code(out) == "PAYLOAD_TOO_LARGE"
    # Without a key the answer is still a clean 401 or 413, never a reset.
    status, _, out = live.request("POST", "/graphql", big.encode(),
                                  {"content-type": "application/json"})
    assert status in (401, 413)


def test_access_log_has_no_query_strings(embedded_store: FalkorStore, user: str) -> None:
    service = make_service(embedded_store)
    records: list[logging.LogRecord] = []
    capture = logging.Handler()
    capture.emit = records.append  # type: ignore[method-assign]
    server = LiveServer(service, service.settings, access_log=True)
    access = logging.getLogger("uvicorn.access")  # configured by uvicorn by now
    access.addHandler(capture)
    try:
        with server:
            q = quote('{ recall(input: {userId: "U", query: "my password is hunter2"}) '
                      "{ coldStart } }".replace("U", user))
            status, _, _ = server.request("GET", f"/graphql?query={q}")
            assert status == 200
            server.request("GET", "/health?token=hunter2")
    finally:
        access.removeHandler(capture)
    lines = [r.getMessage() for r in records]
    assert any('"GET /graphql HTTP/1.1" 200' in line for line in lines), lines
    assert any('"GET /health HTTP/1.1" 200' in line for line in lines), lines
    assert not any("hunter2" in line or "?" in line for line in lines), lines


def _serve(data_dir: Path, *args: str, env: dict[str, str] | None = None,
           ) -> tuple[Any, int]:
    import subprocess

    port = free_port()
    proc = subprocess.Popen([*graphmem_command(), "serve", "--port", str(port), "--data-dir",
                             str(data_dir), "--embedder", "hashing", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env=child_env(**(env or {})))
    return proc, port


def test_serve_refuses_an_open_non_loopback_bind(tmp_path: Path) -> None:
    proc, _ = _serve(tmp_path / "d", "--host", "0.0.0.0")
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 2, out
    text = out.decode()
    assert "0.0.0.0" in text and "API key" in text and "--insecure-no-auth" in text, text
    assert not (tmp_path / "d").exists(), "the store was opened before refusing"


@pytest.mark.slow
def test_serve_insecure_no_auth_starts_and_logs_no_query(tmp_path: Path) -> None:
    import httpx

    proc, port = _serve(tmp_path / "d", "--host", "0.0.0.0", "--insecure-no-auth",
                        "--access-log")
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None and time.monotonic() < deadline
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        q = quote('{ stats(userId: "sk-live-1234567890") { episodes } }')
        assert httpx.get(f"http://127.0.0.1:{port}/graphql?query={q}").status_code == 200
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=60)
    text = out.decode()
    assert "WARNING" in text and "no API key" in text, text
    assert "GET /graphql HTTP/1.1" in text and "sk-live" not in text, text
