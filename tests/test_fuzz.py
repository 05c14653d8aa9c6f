"""Fuzzing the real ASGI app from its own schema.

Operations come from ``hypothesis-graphql`` strategies built from ``graphmem.api.schema.sdl()``
(valid queries and mutations with generated arguments, and invalid ones: schema violations,
mutated documents, wrong-typed variables, odd transports). Two users hold known, distinct
data; the fuzzing key owns only user A. The properties, checked on every response:

* ``no-5xx``: never a server error status;
* ``error-code``: every error carries ``extensions.code``;
* ``no-python-text``: no Python error text (tracebacks, exception class names, "NoneType"...)
  nor a query string in an error message;
* ``no-internal-error``: nothing ends as an unexplained ``INTERNAL_SERVER_ERROR``;
* ``no-leak``: nothing of user B (its marker words, its node ids) ever reaches the fuzzer,
  and nothing of anyone without a valid key;
* ``rejected-unchanged``: an operation whose every root field was refused leaves the
  store as it was (counts and a digest of every node and edge of the user);
* ``readback``: an accepted ``addRelation`` / ``addEpisode`` with generated strings reads
  back exactly what was sent (surrounding whitespace trimmed, secrets replaced by
  ``[REDACTED:<kind>]``: the documented normalisation);
* ``check``: ``graphmem.check`` finds no broken invariant after each test, and user B's
  memory is exactly as planted.

Strategies and judging live in ``tests/fuzz_support.py``. Bounded for CI
(``GRAPHMEM_FUZZ_EXAMPLES`` sets the examples per test). With ``GRAPHMEM_FUZZ_STATS=<file>``
the properties are recorded instead of asserted and a summary is written there:
``bench/fuzz.py`` runs this module that way for long runs.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import graphql
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.check import check_store
from graphmem.embed import HashingEmbedder
from graphmem.inputs import EpisodeIn, RelationIn
from graphmem.service import MemoryService
from graphmem.store.falkor import FalkorStore
from graphmem.store.queries import LABELS

from .api_support import serve_api
from .conftest import DIM, make_settings
from .fuzz_support import (
    FUZZ,
    INVALID,
    KEY_A,
    KEY_ADMIN,
    MUTATIONS,
    PRINTABLE,
    QUERIES,
    TALLY,
    TEXTS,
    FuzzEnv,
    datetime_texts,
    examples,
    guarded,
    instant_ms,
    judge,
    mutated,
    requests_,
    retargeted,
    same_text,
    snapshot,
    with_variables,
)

pytestmark = pytest.mark.slow


def _plant(service: MemoryService, user: str, word: str) -> list[str]:
    """Known data with unique marker words: episodes, relations, entities."""
    markers = [f"{word}{uuid.uuid4().hex[:8]}" for _ in range(4)]
    t = datetime(2024, 3, 1, tzinfo=UTC)
    service.add_episodes([
        EpisodeIn(user, t, content=f"I prefer {markers[0]} for editing.", source="chat",
                  source_ref=f"ref-{markers[1]}", session_id="s1"),
        EpisodeIn(user, t + timedelta(days=1), content=f"I work at {markers[2]} now."),
    ])
    service.add_relation(RelationIn(user, "user", "prefers", markers[3],
                                    valid_from=t + timedelta(days=2), exclusive=True))
    service.add_relation(RelationIn(user, markers[1], "knows", markers[2],
                                    statement=f"{markers[1]} knows {markers[2]}",
                                    valid_from=t))
    return markers


@pytest.fixture
def fuzz(embedded_store: FalkorStore, user: str,
         request: pytest.FixtureRequest) -> Iterator[FuzzEnv]:
    """The app with planted users A and B; afterwards: check_store, B unchanged."""
    a, b = f"{user}-a", f"{user}-b"
    settings_ = make_settings(api_keys={KEY_A: [a], KEY_ADMIN: ["*"]},
                              access_flush_s=86_400.0, access_flush_count=10**9)
    service = MemoryService(settings_, embedded_store, HashingEmbedder(DIM))
    a_markers = _plant(service, a, "Alphaquill")
    b_markers = _plant(service, b, "Zebrawick")

    def ids(u: str) -> list[str]:
        return [r["id"] for label in LABELS
                for r in embedded_store.export_nodes(label, u, 0, 10_000)]

    b_before = snapshot(embedded_store, b)
    with serve_api(service, settings_) as api:
        env = FuzzEnv(api, embedded_store, a, b, a_markers, b_markers, ids(a), ids(b),
                      users={a, b}, test=request.node.name)
        yield env
    report = check_store(embedded_store, sorted(env.users))
    if not report.ok:
        TALLY.fail("check", env.test, report.summary() + ": " + "; ".join(
            v.describe() for v in report.violations[:5]), "(store after the test)")
    if snapshot(embedded_store, b) != b_before:
        TALLY.fail("no-leak", env.test, f"user B ({b}) changed", "(store after the test)")


# --------------------------------------------------------------------------- schema fuzzing


def test_fuzz_queries(fuzz: FuzzEnv) -> None:
    @settings(FUZZ, max_examples=examples(120))
    @given(op=retargeted(QUERIES, fuzz))
    def run(op: str) -> None:
        judge(fuzz, fuzz.send(op), op)

    run()


def test_fuzz_mutations(fuzz: FuzzEnv) -> None:
    @settings(FUZZ, max_examples=examples(100))
    @given(op=retargeted(MUTATIONS, fuzz))
    def run(op: str) -> None:
        guarded(fuzz, op, lambda: judge(fuzz, fuzz.send(op), op))

    run()


def test_fuzz_invalid_operations(fuzz: FuzzEnv) -> None:
    """Schema violations are refused with a code and write nothing; a mutated document is
    judged like any other operation (it may still be valid)."""
    @settings(FUZZ, max_examples=examples(100))
    @given(case=st.one_of(
        st.tuples(st.just(True), INVALID.map(graphql.print_ast)),  # violations kept as made
        st.tuples(st.just(False), mutated(st.one_of(retargeted(QUERIES, fuzz),
                                                    retargeted(MUTATIONS, fuzz))))))
    def run(case: tuple[bool, str]) -> None:
        invalid, op = case
        body = guarded(fuzz, op, lambda: judge(fuzz, fuzz.send(op), op))
        if invalid and not (isinstance(body, dict) and body.get("errors")):
            TALLY.fail("invalid-refused", fuzz.test, "a schema violation was executed", op)

    run()


def test_fuzz_variables(fuzz: FuzzEnv) -> None:
    @settings(FUZZ, max_examples=examples(120))
    @given(case=with_variables(fuzz))
    def run(case: tuple[str, Any]) -> None:
        op, variables = case
        shown = f"{op}\nvariables: {json.dumps(variables)[:1000]}"
        guarded(fuzz, op, lambda: judge(fuzz, fuzz.send(op, variables), shown))

    run()


def test_fuzz_transports(fuzz: FuzzEnv) -> None:
    """GET and POST in every encoding, with and without keys: no 5xx, codes, no leak, and
    nothing at all for a request without a valid key."""
    @settings(FUZZ, max_examples=examples(120))
    @given(req=requests_(fuzz))
    def run(req: dict[str, Any]) -> None:
        fuzz.users.add(fuzz.a)
        shown = f"{req['method']} {req['url'][:1500]} headers={req['headers']} " \
                f"body={(req['content'] or b'')[:500]!r}"
        authenticated = req["key"] == KEY_A and req["style"] in ("bearer", "x-api-key",
                                                                "lower")

        def send() -> Any:
            resp = fuzz.request(req["method"], req["url"], shown, headers=req["headers"],
                                content=req["content"])
            if resp is not None and resp.headers.get("content-type", "").startswith("text/html"):
                if any(m in resp.text for m in fuzz.a_markers + fuzz.b_markers):
                    TALLY.fail("no-leak", fuzz.test, "the GraphiQL page holds memories",
                               shown)
                return None
            return judge(fuzz, resp, shown, authenticated=authenticated)

        guarded(fuzz, req["op"], send)

    run()


ADD_RELATION = """mutation($in: RelationInput!) { addRelation(input: $in) {
  id subject predicate object statement category sourceRefs validFrom } }"""
READ_RELATION = """query($u: ID!, $id: ID!) {
  relation(userId: $u, id: $id) { id subject predicate object statement category sourceRefs
                                  validFrom }
  relations(userId: $u, includeHistory: true, limit: 1000) { id subject object statement } }"""


def test_add_relation_reads_back_exactly(fuzz: FuzzEnv) -> None:
    @settings(FUZZ, max_examples=examples(80))
    @given(data=st.data(), clean=st.booleans())
    def run(data: st.DataObject, clean: bool) -> None:
        texts = PRINTABLE if clean else TEXTS  # half the examples should be accepted
        subject, predicate, obj = (data.draw(texts) for _ in range(3))
        statement, category, source_ref = (data.draw(st.none() | texts) for _ in range(3))
        valid_from = data.draw(st.none() | datetime_texts())
        user = f"{fuzz.a}-r{uuid.uuid4().hex[:10]}"  # a fresh user: no group to join
        fuzz.users.add(user)
        sent = {"userId": user, "subject": subject, "predicate": predicate, "object": obj,
                "statement": statement, "category": category, "sourceRef": source_ref,
                "validFrom": valid_from}
        op = f"{ADD_RELATION}\nvariables: {json.dumps(sent)}"
        body = judge(fuzz, fuzz.send(ADD_RELATION, {"in": sent}, key=KEY_ADMIN), op)
        def fail(detail: str) -> None:
            TALLY.fail("readback", fuzz.test, detail, op)

        if not body or not (body.get("data") or {}).get("addRelation"):
            if snapshot(fuzz.store, user)[0] != dict.fromkeys(LABELS, 0):
                TALLY.fail("rejected-unchanged", fuzz.test, "refused, yet stored", op)
            return
        got = body["data"]["addRelation"]
        for name, value in (("subject", subject), ("predicate", predicate), ("object", obj)):
            if not same_text(value, got[name]):
                fail(f"{name} sent {value!r}, stored {got[name]!r}")
        if statement is not None and not same_text(statement, got["statement"]):
            fail(f"statement sent {statement!r}, stored {got['statement']!r}")
        if category is not None and not same_text(category, got["category"]):
            fail(f"category sent {category!r}, stored {got['category']!r}")
        if source_ref is not None and not any(same_text(source_ref, r)
                                              for r in got["sourceRefs"]):
            fail(f"sourceRef sent {source_ref!r}, stored {got['sourceRefs']!r}")
        if valid_from is not None and instant_ms(valid_from) is not None \
                and instant_ms(valid_from) != instant_ms(got["validFrom"]):
            fail(f"validFrom sent {valid_from!r}, stored {got['validFrom']!r}")
        back = judge(fuzz, fuzz.send(READ_RELATION, {"u": user, "id": got["id"]},
                                     key=KEY_ADMIN), op)
        read = (back or {}).get("data") or {}
        if read.get("relation") != got:
            fail(f"addRelation answered {got!r}, relation() reads {read.get('relation')!r}")
        listed = {r["id"]: r for r in read.get("relations") or []}
        mine = listed.get(got["id"])
        if mine is None or any(mine[k] != got[k] for k in ("subject", "object", "statement")):
            fail(f"relations() lists {mine!r} for {got!r}")

    run()


ADD_EPISODE = """mutation($in: EpisodeInput!) { addEpisode(input: $in) {
  redacted duplicate
  episode { id content source sourceRef sessionId speaker occurredAt } } }"""
READ_EPISODES = """query($u: ID!) { episodes(userId: $u, limit: 50) {
  total items { id content source sourceRef sessionId speaker occurredAt } } }"""


def test_add_episode_reads_back_exactly(fuzz: FuzzEnv) -> None:
    @settings(FUZZ, max_examples=examples(80))
    @given(data=st.data(), clean=st.booleans())
    def run(data: st.DataObject, clean: bool) -> None:
        texts = PRINTABLE if clean else TEXTS
        content = data.draw(texts)
        source, source_ref, session, speaker = (data.draw(st.none() | texts)
                                                for _ in range(4))
        occurred = data.draw(datetime_texts())
        user = f"{fuzz.a}-e{uuid.uuid4().hex[:10]}"
        fuzz.users.add(user)
        sent = {"userId": user, "content": content, "source": source, "sourceRef": source_ref,
                "sessionId": session, "speaker": speaker, "occurredAt": occurred}
        op = f"{ADD_EPISODE}\nvariables: {json.dumps(sent)}"
        body = judge(fuzz, fuzz.send(ADD_EPISODE, {"in": sent}, key=KEY_ADMIN), op)
        def fail(detail: str) -> None:
            TALLY.fail("readback", fuzz.test, detail, op)

        if not body or not (body.get("data") or {}).get("addEpisode"):
            if snapshot(fuzz.store, user)[0] != dict.fromkeys(LABELS, 0):
                TALLY.fail("rejected-unchanged", fuzz.test, "refused, yet stored", op)
            return
        got = body["data"]["addEpisode"]["episode"]
        for name, value in (("content", content), ("source", source),
                            ("sourceRef", source_ref), ("sessionId", session),
                            ("speaker", speaker)):
            if value is not None and not same_text(value, got[name]):
                fail(f"{name} sent {value!r}, stored {got[name]!r}")
        sent_at = instant_ms(occurred)
        if sent_at is not None and sent_at != instant_ms(got["occurredAt"]):
            fail(f"occurredAt sent {occurred!r}, stored {got['occurredAt']!r}")
        back = judge(fuzz, fuzz.send(READ_EPISODES, {"u": user}, key=KEY_ADMIN), op)
        items = (((back or {}).get("data") or {}).get("episodes") or {}).get("items")
        if items != [got]:
            fail(f"addEpisode answered {got!r}, episodes() reads {items!r}")

    run()
