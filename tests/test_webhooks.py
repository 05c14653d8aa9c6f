"""Webhooks against a real local HTTP receiver: every event arrives once and in order
through retries, signed; a refused batch is dead-lettered without holding back later ones;
a restart resumes from the persisted cursor; users are sent apart; close() is prompt."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pydantic
import pytest

from graphmem.embed import HashingEmbedder
from graphmem.inputs import EpisodeIn, RelationIn
from graphmem.service import MemoryService
from graphmem.store.falkor import FalkorStore

from .api_support import serve_api
from .conftest import DIM, FakeClock, make_settings

SECRET = "hook-secret"


class Receiver:
    """A webhook endpoint on 127.0.0.1: answers the scripted statuses first, then
    ``default``; keeps every request (status, headers, raw body)."""

    def __init__(self) -> None:
        self.script: list[int] = []
        self.default = 200
        self.requests: list[tuple[int, dict[str, str], bytes]] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with receiver.lock:
                    code = receiver.script.pop(0) if receiver.script else receiver.default
                    receiver.requests.append((code, dict(self.headers), body))
                self.send_response(code)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def accepted(self) -> list[dict[str, Any]]:
        """The payloads answered 2xx, in the order they came, a delivery repeated (its 2xx
        lost to a timeout on a loaded machine: at least once) taken once, as a receiver
        does by its delivery id."""
        seen: set[str] = set()
        out = []
        with self.lock:
            for code, headers, body in self.requests:
                delivery = {k.lower(): v for k, v in headers.items()}.get(
                    "x-graphmem-delivery", "")
                if 200 <= code < 300 and (not delivery or delivery not in seen):
                    seen.add(delivery)
                    out.append(json.loads(body))
        return out

    def events(self, user: str | None = None) -> list[str]:
        return [e["cursor"] for p in self.accepted() if user in (None, p["userId"])
                for e in p["events"]]

    def codes(self) -> list[int]:
        with self.lock:
            return [code for code, _, _ in self.requests]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    recv = Receiver()
    recv.thread.start()
    yield recv
    recv.server.shutdown()
    recv.server.server_close()


class KeepOpen:
    """The session's store, which a service here may open and close without effect."""

    def __init__(self, inner: FalkorStore) -> None:
        self._inner = inner

    def open(self) -> None:
        pass

    def close(self) -> None:
        pass

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._inner, attr)


def hooked(store: FalkorStore, clock: FakeClock, data_dir: Path, url: str,
           **overrides: Any) -> MemoryService:
    settings = make_settings(**{"webhook_url": url, "webhook_secret": SECRET,
                                "webhook_backoff_s": 0.01, "webhook_backoff_max_s": 0.05,
                                "webhook_timeout_s": 5.0, "data_dir": data_dir, **overrides})
    return MemoryService(settings, KeepOpen(store), HashingEmbedder(DIM),  # type: ignore[arg-type]
                         clock=clock)


def wait_for(check: Callable[[], object], timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


def episode(service: MemoryService, user: str, text: str, clock: FakeClock) -> str:
    clock.tick(1)
    return service.add_episode(EpisodeIn(user_id=user, occurred_at=clock(),
                                         content=text)).episode.id


def cursors(service: MemoryService, user: str, since: Any) -> list[str]:
    return [e.cursor for e in service.events(user, since=since, limit=1000).items]


def test_every_event_arrives_once_in_order_through_retries(
        embedded_store: FalkorStore, clock: FakeClock, user: str, receiver: Receiver,
        tmp_path: Path) -> None:
    receiver.script = [500, 500]
    start = clock()
    service = hooked(embedded_store, clock, tmp_path, receiver.url)
    try:
        episode(service, user, "I moved to Lisbon last spring.", clock)
        clock.tick(1)
        service.add_relation(RelationIn(user_id=user, subject="Ana", predicate="lives in",
                                        object="Lisbon", exclusive=True))
        clock.tick(1)
        service.add_relation(RelationIn(user_id=user, subject="Ana", predicate="lives in",
                                        object="Porto", exclusive=True))  # supersedes
        episode(service, user, "My favourite editor is Helix.", clock)
        expected = cursors(service, user, start)
        assert len(expected) >= 8 and any('"SUPERSEDED"' in c for c in expected)
        wait_for(lambda: len(receiver.events(user)) >= len(expected))
        assert receiver.events(user) == expected  # once each, in order
        assert receiver.codes()[:3] == [500, 500, 200]
        assert service.webhooks is not None and service.webhooks.stats.retries == 2
        with receiver.lock:
            requests = list(receiver.requests)
        assert requests[0][2] == requests[2][2]  # a retry re-sends the same batch
        for _, headers, body in requests:
            want = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
            assert headers["X-Graphmem-Signature"] == f"sha256={want}"
            assert headers["Content-Type"] == "application/json"
        first = receiver.accepted()[0]["events"][0]
        assert set(first) == {"at", "kind", "memoryId", "memoryKind", "text", "relatedId",
                              "detail", "cursor"}
        assert first["kind"] == "RECORDED" and first["text"]
    finally:
        service.close()


def test_events_are_never_read_in_the_middle_of_a_write(
        embedded_store: FalkorStore, clock: FakeClock, user: str, receiver: Receiver,
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the events of one write share a time: a read that saw the relation of a write but
    # not yet its episode would send the episode after it, out of order. Every read of the
    # dispatcher holds the service's write lock, which every write holds until it lands.
    from graphmem import _webhooks

    service = hooked(embedded_store, clock, tmp_path, receiver.url)
    lock = service._write_lock
    held: list[bool] = []
    real = _webhooks.read_events

    def reading(*args: Any, **kwargs: Any) -> Any:
        held.append(lock._is_owned())  # type: ignore[attr-defined]  # by this thread
        return real(*args, **kwargs)

    monkeypatch.setattr(_webhooks, "read_events", reading)
    try:
        episode(service, user, "I moved to Lisbon last spring.", clock)
        wait_for(lambda: len(receiver.events(user)) >= 1)
        assert held and all(held)
    finally:
        service.close()


def test_writes_stamped_alike_are_all_sent(embedded_store: FalkorStore, clock: FakeClock,
                                           user: str, receiver: Receiver,
                                           tmp_path: Path) -> None:
    """Episodes written in the same millisecond, each after the one before was delivered:
    a later one's events may sort before the cursor, and are sent all the same."""
    start = clock()
    service = hooked(embedded_store, clock, tmp_path, receiver.url)
    try:
        for n in range(4):
            service.add_episode(EpisodeIn(user_id=user, occurred_at=start,
                                          content=f"Note number {n}."))
            done = len(cursors(service, user, start))
            wait_for(lambda done=done: len(receiver.events(user)) >= done)
        assert sorted(receiver.events(user)) == sorted(cursors(service, user, start))
        assert len(set(receiver.events(user))) == len(receiver.events(user))
    finally:
        service.close()


def test_a_refused_batch_is_dead_lettered_and_later_events_go_on(
        embedded_store: FalkorStore, clock: FakeClock, user: str, receiver: Receiver,
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    receiver.script = [400]
    start = clock()
    service = hooked(embedded_store, clock, tmp_path, receiver.url)
    assert service.webhooks is not None
    try:
        with caplog.at_level(logging.INFO, logger="graphmem.webhooks"):
            episode(service, user, "My secret hobby is falconry.", clock)
            refused = cursors(service, user, start)
            wait_for(lambda: service.webhooks and service.webhooks.stats.dead_lettered)
            later = clock.tick(1)  # after the refused write's events
            episode(service, user, "I drink green tea.", clock)
            sent = cursors(service, user, later)
            wait_for(lambda: len(receiver.events(user)) >= len(sent))
        assert receiver.codes()[0] == 400
        assert receiver.events(user) == sent
        assert service.webhooks.stats.dead_lettered == len(refused)
        assert "dead-lettered" in caplog.text and user in caplog.text
        assert "falconry" not in caplog.text  # memories are never logged
    finally:
        service.close()


def test_a_restart_resumes_from_the_persisted_cursor(
        embedded_store: FalkorStore, clock: FakeClock, user: str, receiver: Receiver,
        tmp_path: Path) -> None:
    start = clock()
    first = hooked(embedded_store, clock, tmp_path, receiver.url)
    episode(first, user, "I play the cello.", clock)
    wait_for(lambda: len(receiver.events(user)) >= len(cursors(first, user, start)))
    receiver.default = 503  # the receiver goes down with events pending
    episode(first, user, "I play the piano too.", clock)
    wait_for(lambda: first.webhooks and first.webhooks.stats.retries >= 2)
    first.close()
    state = json.loads((tmp_path / "webhooks.json").read_text())
    assert state["users"][user]["cursor"] == receiver.events(user)[-1]

    receiver.default = 200
    clock.tick(60)
    second = hooked(embedded_store, clock, tmp_path, receiver.url)
    try:
        second.open()  # no write needed: what was pending is sent
        wait_for(lambda: len(receiver.events(user)) >= len(cursors(second, user, start)))
        episode(second, user, "I sing in a choir.", clock)
        wait_for(lambda: len(receiver.events(user)) >= len(cursors(second, user, start)))
        time.sleep(0.1)  # anything re-sent would show up by now
        assert receiver.events(user) == cursors(second, user, start)
    finally:
        second.close()


def test_a_parked_batch_is_kept_and_a_new_write_retries_it(
        embedded_store: FalkorStore, clock: FakeClock, user: str, receiver: Receiver,
        tmp_path: Path) -> None:
    start = clock()
    receiver.default = 503
    service = hooked(embedded_store, clock, tmp_path, receiver.url, webhook_max_attempts=2,
                     webhook_backoff_max_s=600.0)
    assert service.webhooks is not None
    try:
        episode(service, user, "I collect stamps.", clock)
        wait_for(lambda: service.webhooks and service.webhooks.stats.retries >= 2)
        time.sleep(0.1)
        assert len(receiver.codes()) == 2  # parked: no third attempt for now
        receiver.default = 200
        episode(service, user, "I collect coins too.", clock)  # wakes it
        wait_for(lambda: len(receiver.events(user)) >= len(cursors(service, user, start)))
        assert receiver.events(user) == cursors(service, user, start)
    finally:
        service.close()


def test_users_are_sent_in_separate_payloads(embedded_store: FalkorStore, clock: FakeClock,
                                             user: str, receiver: Receiver,
                                             tmp_path: Path) -> None:
    start = clock()
    ana, bo = f"{user}-ana", f"{user}-bo"
    service = hooked(embedded_store, clock, tmp_path, receiver.url)
    try:
        episode(service, ana, "I live in Oslo.", clock)
        episode(service, bo, "I live in Rome.", clock)
        episode(service, ana, "I work at Acme.", clock)
        want = {u: cursors(service, u, start) for u in (ana, bo)}
        wait_for(lambda: all(len(receiver.events(u)) >= len(c) for u, c in want.items()))
        for payload in receiver.accepted():
            ids = {e["memoryId"] for e in payload["events"]}
            other = bo if payload["userId"] == ana else ana
            assert not ids & {json.loads(c)[2] for c in want[other]}
        assert {u: receiver.events(u) for u in want} == want
    finally:
        service.close()


def test_close_is_prompt_while_the_receiver_is_down(embedded_store: FalkorStore,
                                                   clock: FakeClock, user: str,
                                                   tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    service = hooked(embedded_store, clock, tmp_path, f"http://127.0.0.1:{port}/hook")
    episode(service, user, "I keep bees.", clock)
    wait_for(lambda: service.webhooks and service.webhooks.stats.retries >= 3)
    began = time.monotonic()
    service.close()
    assert time.monotonic() - began < 1.0
    assert service.webhooks is not None and service.webhooks._thread is not None
    assert not service.webhooks._thread.is_alive()


def test_no_dispatcher_without_a_url_and_only_http_urls(embedded_store: FalkorStore) -> None:
    plain = MemoryService(make_settings(), embedded_store, HashingEmbedder(DIM))
    assert plain.webhooks is None
    for bad in ("ftp://example.com/hook", "localhost:8000", "http://"):
        with pytest.raises(pydantic.ValidationError):
            make_settings(webhook_url=bad)
    assert make_settings(webhook_url=" https://example.com/h ").webhook_url \
        == "https://example.com/h"


def test_an_add_episode_mutation_is_posted(embedded_store: FalkorStore, clock: FakeClock,
                                           user: str, receiver: Receiver,
                                           tmp_path: Path) -> None:
    service = hooked(embedded_store, clock, tmp_path, receiver.url)
    mutation = """mutation($in: EpisodeInput!) { addEpisode(input: $in) {
        episode { id } } }"""
    try:
        with serve_api(service) as api:
            out = api.data(mutation, {"in": {
                "userId": user, "content": "I ride a red bicycle.",
                "occurredAt": (clock() - timedelta(hours=1)).isoformat()}})
        ep_id = out["addEpisode"]["episode"]["id"]
        wait_for(lambda: any(e["memoryId"] == ep_id for p in receiver.accepted()
                             for e in p["events"]))
        assert {p["userId"] for p in receiver.accepted()} == {user}
    finally:
        service.close()
