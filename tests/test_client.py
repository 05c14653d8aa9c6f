"""graphmem.client against a real server: the real app under uvicorn on a loopback port
(embedded store, hashing embedder, API keys), and a tiny stub server for retries."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest
import uvicorn

from graphmem import cli
from graphmem.api.app import create_app
from graphmem.client import (
    AsyncGraphMemClient,
    AuthenticationError,
    BadInputError,
    ForbiddenError,
    GraphMemClient,
    MemoryKind,
    MemoryStatus,
    NotFoundError,
    RateLimitedError,
    RetryPolicy,
    TransportError,
    UnavailableError,
)
from graphmem.embed import HashingEmbedder
from graphmem.errors import InvalidInputError
from graphmem.service import MemoryService
from graphmem.settings import Settings
from graphmem.store.falkor import FalkorStore

from .conftest import DIM, make_settings
from .test_api_serve import free_port

RUN = uuid.uuid4().hex[:8]
ANA, BOB, EVE = f"ana-{RUN}", f"bob-{RUN}", f"eve-{RUN}"
KEYS = {"key-ana": [ANA], "key-bob": [BOB], "key-all": ["*"]}
FAST = RetryPolicy(retries=2, backoff=0.01, max_backoff=0.05)


class LiveApp:
    """The real app (``create_app``) under uvicorn on a free loopback port, in a thread."""

    def __init__(self, service: MemoryService, settings: Settings) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(create_app(settings, service), host="127.0.0.1",
                                port=self.port, lifespan="on", log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveApp:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "no server"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)


@pytest.fixture(scope="module")
def live(embedded_store: FalkorStore) -> Iterator[LiveApp]:
    settings = make_settings(api_keys=KEYS, reflect_every=0)
    service = MemoryService(settings, embedded_store, HashingEmbedder(DIM))
    with LiveApp(service, settings) as app:
        yield app


@pytest.fixture
def gm(live: LiveApp) -> Iterator[GraphMemClient]:
    with GraphMemClient(live.url, api_key="key-all", retry=FAST) as client:
        yield client


def _user() -> str:
    return f"u-{uuid.uuid4().hex[:10]}"


# --------------------------------------------------------------------------- the contract


def test_writes_and_reads_round_trip_through_the_whole_api(gm: GraphMemClient) -> None:
    user = _user()
    ep = gm.add_episode(user, "2024-03-01T09:00:00Z", source_ref="msg-1",
                        content="I switched from Vue to React for the dashboard.")
    assert not ep.duplicate and ep.episode.source_ref == "msg-1"
    assert ep.episode.occurred_at == datetime(2024, 3, 1, 9, tzinfo=UTC)
    assert any(r.object == "React" for r in ep.relations)
    assert gm.add_episode(user, "2024-03-01T09:00:00Z", source_ref="msg-1",
                          content="I switched from Vue to React for the dashboard."
                          ).duplicate
    batch = gm.add_episodes([
        {"user_id": user, "occurred_at": "2024-04-01", "session_id": "s2",
         "messages": [{"role": "user", "content": "I live in Lisbon now.", "name": "Ana"},
                      {"role": "assistant", "content": "Noted."}]},
        {"user_id": user, "occurred_at": "2024-04-02", "content": "I like jazz.",
         "session_id": "s2"}])
    assert [b.episode.session_id for b in batch] == ["s2", "s2"]

    paris = gm.add_relation(user, "Ana", "lives_in", "Paris", valid_from="2020-01-01",
                            exclusive=True, source_ref="doc-7")
    berlin = gm.add_relation(user, "Ana", "lives_in", "Berlin",
                             valid_from=datetime(2023, 6, 1, tzinfo=UTC), exclusive=True)
    assert [s.id for s in berlin.supersedes] == [paris.id]
    assert paris.source_refs == ["doc-7"]
    more = gm.add_relations([
        {"user_id": user, "subject": "Ana", "predicate": "works_at", "object": "Acme",
         "valid_from": "2021-01-01"},
        {"user_id": user, "subject": "Acme", "predicate": "located_in", "object": "Lyon"}])
    assert [r.predicate for r in more] == ["works_at", "located_in"]

    then = gm.relations(user, predicate="lives_in", subject="Ana", as_of="2021-06-01")
    assert [r.object for r in then] == ["Paris"]
    assert {r.object for r in gm.relations(user, predicate="lives_in")} >= {"Berlin"}
    old = gm.relation(user, paris.id)
    assert old.status == MemoryStatus.SUPERSEDED and old.valid_until is not None
    assert [r.object for r in gm.history(user, berlin.id)] == ["Paris", "Berlin"]

    everything = {r.id for r in gm.relations(user, include_history=True, limit=1000)}
    paged = [r.id for r in gm.iter_relations(user, include_history=True, page_size=2)]
    assert len(paged) == len(set(paged)) == len(everything) >= 5
    assert set(paged) == everything
    first = gm.relation_page(user, first=2, include_history=True)
    assert len(first.items) == 2 and first.next_cursor

    found = gm.recall(user, "where does Ana live?", kinds=[MemoryKind.RELATION], limit=5)
    assert found.items and found.items[0].kind == MemoryKind.RELATION
    assert found.items[0].relation is not None and found.items[0].scores.fused >= 0
    texts = [it.text for it in found.items]
    assert any("Berlin" in t for t in texts) and not any("Paris" in t for t in texts)
    past = gm.recall(user, "where does Ana live?", as_of="2021-06-01", kinds=["relation"])
    texts = [it.text for it in past.items]
    assert any("Paris" in t for t in texts) and not any("Berlin" in t for t in texts)
    window = gm.recall(user, "what happened in March 2024?",
                       reference_time="2024-06-01T00:00:00Z")
    assert window.temporal_window is not None and window.temporal_window.start.year == 2024
    between = gm.recall(user, "dashboard", between=("2024-02-01", "2024-03-15"),
                        kinds=["episode"])
    assert between.items and between.items[0].episode is not None

    ents = gm.entities(user, name="Ana")
    assert ents.total >= 1 and ents.items[0].name == "Ana"
    assert gm.entity(user, ents.items[0].id).id == ents.items[0].id
    eps = gm.episodes(user, session_id="s2")
    assert eps.total == 2 and eps.items[0].occurred_at < eps.items[1].occurred_at

    stats = gm.stats(user)
    assert stats.episodes == 3 and stats.relations >= 5 and stats.user_id == user

    assert gm.forget(user, berlin.id) is True
    assert gm.forget(user, berlin.id) is False
    assert berlin.id not in {r.id for r in gm.relations(user)}
    assert gm.restore(user, berlin.id) is True
    assert berlin.id in {r.id for r in gm.relations(user)}

    assert isinstance(gm.reflect(user), list)
    assert isinstance(gm.abstractions(user, include_history=True), list)
    raw = gm.execute("query($u: ID!) { stats(userId: $u) { episodes } }", {"u": user})
    assert raw == {"stats": {"episodes": 3}}


def test_reflect_and_abstractions_come_back_typed(gm: GraphMemClient) -> None:
    user = _user()
    for n, day in enumerate(("2024-01-01", "2024-02-01", "2024-03-01")):
        gm.add_episode(user, day, content="I prefer Neovim for editing.", source_ref=f"m{n}")
    made = gm.reflect(user)
    assert made and "Neovim" in made[0].conclusion and made[0].sources
    current = gm.abstractions(user)
    assert [a.id for a in current] == [made[0].id]
    assert current[0].status == MemoryStatus.ACTIVE and current[0].version == 1


def test_the_async_client_has_the_same_contract(live: LiveApp) -> None:
    user = _user()

    async def main() -> None:
        async with AsyncGraphMemClient(live.url, api_key="key-all", retry=FAST) as gm:
            a = await gm.add_relation(user, "Ana", "prefers", "tea", valid_from="2022-01-01",
                                      exclusive=True)
            b = await gm.add_relation(user, "Ana", "prefers", "coffee",
                                      valid_from="2023-01-01", exclusive=True)
            assert [s.id for s in b.supersedes] == [a.id]
            ep = await gm.add_episode(user, "2024-01-01", content="I moved to Oslo.")
            assert ep.episode.user_id == user
            ids = [r.id async for r in gm.iter_relations(user, include_history=True,
                                                        page_size=1)]
            assert set(ids) >= {a.id, b.id} and len(ids) == len(set(ids))
            hist = await gm.history(user, a.id)
            assert [r.object for r in hist] == ["tea", "coffee"]
            got = await gm.recall(user, "what does Ana prefer?", kinds=["relation"])
            texts = [it.text for it in got.items]
            assert "Ana prefers coffee" in texts and "Ana prefers tea" not in texts
            assert (await gm.stats(user)).relations >= 2

    anyio.run(main)


# --------------------------------------------------------------------------- errors


def test_auth_errors_are_typed(live: LiveApp) -> None:
    with GraphMemClient(live.url, retry=FAST) as anonymous:
        with pytest.raises(AuthenticationError) as e:
            anonymous.stats(ANA)
    assert e.value.code == "UNAUTHENTICATED" and e.value.status == 401
    with GraphMemClient(live.url, api_key="not-a-key", retry=FAST) as wrong:
        with pytest.raises(AuthenticationError):
            wrong.recall(ANA, "anything")
    with GraphMemClient(live.url, api_key="key-ana", retry=FAST) as ana:
        ana.add_relation(ANA, "Ana", "likes", "chess")
        assert ana.relations(ANA)[0].object == "chess"
        with pytest.raises(ForbiddenError) as f:
            ana.relations(BOB)
        assert f.value.code == "FORBIDDEN" and f.value.field == "userId"
        with pytest.raises(ForbiddenError) as f:
            ana.add_relation(BOB, "Bob", "likes", "chess")
        assert f.value.field == "input.userId"
    with GraphMemClient(live.url, api_key="key-bob", retry=FAST) as bob:
        with pytest.raises(ForbiddenError):
            bob.recall(ANA, "chess")


def test_bad_input_and_not_found_are_typed(gm: GraphMemClient) -> None:
    user = _user()
    with pytest.raises(BadInputError) as e:
        gm.add_relation(user, "Ana", "lives_in", "Rome", valid_from="2024-01-01",
                        valid_until="2023-01-01")
    assert e.value.code == "BAD_USER_INPUT" and e.value.field.endswith("validUntil")
    assert isinstance(e.value, InvalidInputError)  # code written for the service catches it
    assert "validUntil" in str(e.value)
    with pytest.raises(BadInputError) as e:
        gm.recall(user, "x", limit=500)
    assert e.value.field.endswith("limit")
    gm.add_relation(user, "Ana", "likes", "go")
    with pytest.raises(NotFoundError) as nf:
        gm.history(user, "rel_000000000000000000000000")
    assert nf.value.code == "NOT_FOUND"
    with pytest.raises(BadInputError) as bad:
        gm.execute("query { nope }")
    assert bad.value.code == "GRAPHQL_VALIDATION_FAILED"


# --------------------------------------------------------------------------- retries


class _Stub:
    """A tiny HTTP server answering from a script: each request takes the next
    ``(status, body, headers, delay)``; the last one repeats."""

    def __init__(self, script: list[tuple[int, Any, dict[str, str], float]]) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                stub.requests.append({"body": json.loads(body), "auth":
                                      self.headers.get("authorization")})
                status, answer, headers, delay = stub.script[
                    min(len(stub.requests), len(stub.script)) - 1]
                time.sleep(delay)
                payload = json.dumps(answer).encode()
                try:
                    self.send_response(status)
                    for k, v in {"content-type": "application/json", **headers}.items():
                        self.send_header(k, v)
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:  # the client gave up (timeout tests)
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> _Stub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


STATS = {"data": {"stats": {"userId": "u", "episodes": 1, "entities": 0, "relations": 0,
                            "abstractions": 0, "forgotten": 0}}}
BUSY = {"errors": [{"message": "busy", "extensions": {"code": "UNAVAILABLE"}}]}


def test_503_and_429_are_retried_with_backoff_then_succeed() -> None:
    script = [(503, BUSY, {}, 0.0), (429, {}, {"retry-after": "0"}, 0.0),
              (200, BUSY, {}, 0.0), (200, STATS, {}, 0.0)]
    with _Stub(script) as stub, GraphMemClient(
            stub.url, api_key="k", retry=RetryPolicy(retries=3, backoff=0.01)) as gm:
        assert gm.stats("u").episodes == 1
    assert len(stub.requests) == 4
    assert all(r["auth"] == "Bearer k" for r in stub.requests)
    assert stub.requests[0]["body"]["variables"] == {"userId": "u"}


def test_retries_are_bounded() -> None:
    with _Stub([(503, BUSY, {}, 0.0)]) as stub, GraphMemClient(stub.url, retry=FAST) as gm:
        with pytest.raises(UnavailableError) as e:
            gm.stats("u")
    assert e.value.status == 503 and len(stub.requests) == FAST.retries + 1
    with _Stub([(429, {}, {"retry-after": "0"}, 0.0)]) as stub, \
            GraphMemClient(stub.url, retry=FAST) as gm:
        with pytest.raises(RateLimitedError):
            gm.forget("u", "rel_1")
    assert len(stub.requests) == FAST.retries + 1


def test_a_refused_connection_is_retried_then_reported() -> None:
    started = time.monotonic()
    with GraphMemClient(f"http://127.0.0.1:{free_port()}", retry=FAST, timeout=2) as gm:
        with pytest.raises(TransportError) as e:
            gm.stats("u")
    assert e.value.code == "UNREACHABLE" and time.monotonic() - started < 10


def test_a_timed_out_query_is_retried_but_a_mutation_is_not() -> None:
    slow = [(200, STATS, {}, 0.6)]
    with _Stub(slow) as stub, GraphMemClient(stub.url, retry=FAST, timeout=0.2) as gm:
        with pytest.raises(TransportError) as e:
            gm.stats("u")
        assert e.value.code == "TIMEOUT" and len(stub.requests) == FAST.retries + 1
        stub.requests.clear()
        with pytest.raises(TransportError):
            gm.forget("u", "rel_1")  # may have been applied: not sent again
        assert len(stub.requests) == 1
        with pytest.raises(TransportError):
            gm.execute('mutation { forget(userId: "u", id: "rel_1") }')
        assert len(stub.requests) == 2


# --------------------------------------------------------------------------- the CLI


def test_cli_url_mode_goes_through_the_client(live: LiveApp, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    user = _user()
    feed = tmp_path / "feed.jsonl"
    feed.write_text(
        json.dumps({"content": "I moved to Porto last week.", "occurredAt": "2024-05-01",
                    "sourceRef": "m1"}) + "\n"
        + json.dumps({"content": "I prefer green tea.", "occurredAt": "2024-05-02"}) + "\n"
        + json.dumps({"content": "no time"}) + "\n", encoding="utf-8")
    code = cli.main(["ingest", str(feed), "--user", user, "--url", live.url,
                     "--api-key", "key-all"])
    assert code == 1  # the third line has no occurredAt; the others are stored
    assert "ingested 2 new episodes" in capsys.readouterr().err
    assert cli.main(["recall", "what tea?", "--user", user, "--url", live.url,
                     "--api-key", "key-all", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert any("green tea" in it["text"] for it in data["items"])
    assert cli.main(["recall", "tea", "--user", user, "--url", live.url]) == 1
    assert "UNAUTHENTICATED" in capsys.readouterr().err
