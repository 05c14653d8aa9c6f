"""API keys, per-user access, request limits (depth, aliases, tokens, body size)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem.store.falkor import FalkorStore

from .api_support import Api, error_of, make_service, serve_api
from .conftest import make_settings

ADD = """mutation($u: ID!, $o: String!) { addRelation(input: {userId: $u, subject: "user",
  predicate: "likes", object: $o}) { id object } }"""
READ = "query($u: ID!) { relations(userId: $u) { object } }"


@pytest.fixture
def keyed(embedded_store: FalkorStore, tmp_path: Path, user: str) -> Iterator[tuple[Api, str]]:
    keys_file = tmp_path / "keys.json"
    keys_file.write_text(json.dumps({"file-key": [f"{user}-c"]}))
    settings = make_settings(api_keys={"key-a": [f"{user}-a"], "key-b": [f"{user}-b"],
                                       "admin-key": ["*"]}, api_keys_file=keys_file)
    with serve_api(make_service(embedded_store), settings) as api:
        yield api, user


def test_no_or_bad_key_is_401(keyed: tuple[Api, str]) -> None:
    api, user = keyed
    for headers in ({}, {"Authorization": "Bearer nope"}, {"X-API-Key": "nope"},
                    {"Authorization": "Basic a2V5LWE6"}):
        resp = api.post(READ, {"u": f"{user}-a"}, headers)
        assert resp.status_code == 401, headers
        assert resp.headers["www-authenticate"].startswith("Bearer")
        assert resp.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    # GET queries need a key too; the GraphiQL page, its assets and /health do not.
    assert api.client.get("/graphql", params={"query": "{ __typename }"}).status_code == 401
    page = api.client.get("/graphql", headers={"accept": "text/html"})
    assert page.status_code == 200 and "graphiql" in page.text.lower()
    assert api.client.get("/graphiql/graphiql.min.css").status_code == 200
    assert api.client.get("/health").json()["auth"] is True


def test_keys_read_and_write_only_their_users(keyed: tuple[Api, str]) -> None:
    api, user = keyed
    a, b = {"Authorization": "Bearer key-a"}, {"X-API-Key": "key-b"}
    assert api.data(ADD, {"u": f"{user}-a", "o": "tea"}, a)["addRelation"]["object"] == "tea"
    assert api.data(ADD, {"u": f"{user}-b", "o": "jazz"}, b)["addRelation"]["object"] == "jazz"
    assert api.data(READ, {"u": f"{user}-a"}, a)["relations"] == [{"object": "tea"}]
    err = error_of(api.errors(READ, {"u": f"{user}-b"}, a))
    assert err["extensions"] == {"code": "FORBIDDEN", "field": "userId"}
    assert f"{user}-b" in err["message"]
    err = error_of(api.errors(ADD, {"u": f"{user}-a", "o": "x"}, b))
    assert err["extensions"]["code"] == "FORBIDDEN"
    q = """mutation($ins: [EpisodeInput!]!) { addEpisodes(inputs: $ins) { duplicate } }"""
    ins = [{"userId": f"{user}-a", "occurredAt": "2025-01-01", "content": "mine"},
           {"userId": f"{user}-b", "occurredAt": "2025-01-01", "content": "not mine"}]
    err = error_of(api.errors(q, {"ins": ins}, a))
    assert err["extensions"] == {"code": "FORBIDDEN", "field": "inputs[1].userId"}
    recall = 'query($u: ID!) { recall(input: {userId: $u, query: "jazz"}) { coldStart } }'
    assert error_of(api.errors(recall, {"u": f"{user}-b"}, a))["extensions"]["field"] \
        == "input.userId"
    # Nothing was written by the refused calls.
    admin = {"Authorization": "Bearer admin-key"}
    assert api.data(READ, {"u": f"{user}-b"}, admin)["relations"] == [{"object": "jazz"}]
    assert api.data(ADD, {"u": f"{user}-c", "o": "go"}, {"X-API-Key": "file-key"})


def test_open_when_no_keys(embedded_store: FalkorStore, user: str) -> None:
    with serve_api(make_service(embedded_store)) as api:
        assert api.data(ADD, {"u": user, "o": "x"})["addRelation"]["object"] == "x"
        assert api.client.get("/health").json()["auth"] is False


# --------------------------------------------------------------------------- limits


@pytest.fixture
def limited(embedded_store: FalkorStore) -> Iterator[Api]:
    settings = make_settings(max_query_depth=5, max_aliases=3, max_body_bytes=4000)
    with serve_api(make_service(embedded_store), settings) as api:
        yield api


def test_query_depth_limit(limited: Api, user: str) -> None:
    nested = "supersedes { " * 5 + "id" + " }" * 5
    deep = f'{{ relations(userId: "{user}") {{ {nested} }} }}'
    err = error_of(limited.errors(deep))
    assert "depth" in err["message"] and err["extensions"]["code"] == \
        "GRAPHQL_VALIDATION_FAILED"
    # Introspection (what GraphiQL sends first) is not counted.
    assert limited.data("{ __schema { types { name fields { type { ofType { ofType { name } "
                        "} } } } } }")


def test_alias_limit(limited: Api, user: str) -> None:
    fields = " ".join(f'a{i}: stats(userId: "{user}") {{ episodes }}' for i in range(5))
    q = f"{{ {fields} }}"
    err = error_of(limited.errors(q))
    assert "aliases" in err["message"].lower()


def test_token_limit(embedded_store: FalkorStore, user: str) -> None:
    settings = make_settings(max_query_tokens=50)
    with serve_api(make_service(embedded_store), settings) as api:
        q = "{{ relations(userId: \"{}\") {{ {} }} }}".format(user, " ".join(["id"] * 100))
        err = error_of(api.errors(q))
        assert "tokens" in err["message"]
        assert err["extensions"]["code"] == "GRAPHQL_PARSE_FAILED"


def test_body_limit(limited: Api, user: str) -> None:
    big = "x" * 5000
    resp = limited.post(ADD, {"u": user, "o": big})
    assert resp.status_code == 413
    assert resp.json()["errors"][0]["extensions"]["code"] == "PAYLOAD_TOO_LARGE"

    def chunks() -> Iterator[bytes]:  # no content-length: counted while streaming
        body = json.dumps({"query": ADD, "variables": {"u": user, "o": big}}).encode()
        for i in range(0, len(body), 1000):
            yield body[i:i + 1000]

    resp = limited.client.post("/graphql", content=chunks(),
                               headers={"content-type": "application/json"})
    assert resp.status_code == 413
    assert limited.post(ADD, {"u": user, "o": "small"}).status_code == 200
