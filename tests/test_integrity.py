"""Write integrity: nothing out of range or unstorable is written, a failed write leaves the
store as it was, one bad stored value never takes a user's memory down.

Through the real GraphQL app and directly on both stores (embedded FalkorDB, and the neo4j
backend over Bolt).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from graphmem.errors import ConflictError, GraphMemError, UnavailableError
from graphmem.model import MAX_INSTANT, MIN_INSTANT, from_ms, to_ms
from graphmem.store.base import EDGE_ENDS, NodeWrite, WritePlan
from graphmem.store.falkor import LOCK_NAME, FalkorStore

from .api_support import Api, error_of, make_service, serve_api
from .conftest import DIM, FakeClock

ADD_RELATION = "mutation($in: RelationInput!) { addRelation(input: $in) { id validFrom } }"
ADD_RELATIONS = "mutation($ins: [RelationInput!]!) { addRelations(inputs: $ins) { id } }"
ADD_EPISODE = ("mutation($in: EpisodeInput!) { addEpisode(input: $in) { duplicate "
               "episode { id content occurredAt } relations { id } } }")
ADD_EPISODES = ("mutation($ins: [EpisodeInput!]!) { addEpisodes(inputs: $ins) { duplicate "
                "episode { id content } } }")
RECALL = "query($in: RecallInput!) { recall(input: $in) { items { id text } } }"
RELATIONS = ("query($u: ID!, $a: DateTime, $k: DateTime) { relations(userId: $u, asOf: $a, "
             "knownAt: $k) { id statement validFrom validUntil } }")
EPISODES = "query($u: ID!) { episodes(userId: $u) { total items { id content occurredAt } } }"
ENTITIES = ("query($u: ID!, $a: DateTime) { entities(userId: $u) { items { name "
            "relations(asOf: $a) { id validFrom } } } }")

EARLY = "0001-01-01T00:00:00+14:00"  # 0000-12-31 UTC
LATE = "9999-12-31T23:59:59-14:00"  # 10000-01-01 UTC


class AsciiApi(Api):
    """Bodies sent as ASCII JSON (``\\ud800`` escapes), so lone surrogates reach the server."""

    def post(self, query: str, variables: dict[str, Any] | None = None,
             headers: dict[str, str] | None = None) -> Any:
        body = json.dumps({"query": query, "variables": variables or {}})
        return self.client.post("/graphql", content=body, headers={
            **self.headers, **(headers or {}), "content-type": "application/json"})


@pytest.fixture
def api(store, clock: FakeClock):  # type: ignore[no-untyped-def]
    with serve_api(make_service(store, clock)) as client:
        yield AsciiApi(client.client, client.headers)


def snapshot(store: Any, user: str) -> dict[str, Any]:
    """Every node (all properties) and edge of one user, comparable across time."""
    out: dict[str, Any] = {}
    for label in ("Episode", "Entity", "Relation", "Abstraction"):
        rows = store.export_nodes(label, user, 0, 100_000)
        out[label] = sorted(sorted((k, repr(v)) for k, v in r.items()) for r in rows)
    for edge in EDGE_ENDS:
        rows = store.export_edges(edge, user)
        out[edge] = sorted(repr(sorted(r.items())) for r in rows)
    return out


def is_empty(store: Any, user: str) -> bool:
    snap = snapshot(store, user)
    return not any(snap.values())


def relation(user: str, obj: str = "Vue", **kw: Any) -> dict[str, Any]:
    return {"userId": user, "subject": "Ann", "predicate": "prefers", "object": obj, **kw}


def episode(user: str, content: str = "Ann uses Vue.", **kw: Any) -> dict[str, Any]:
    return {"userId": user, "content": content, "occurredAt": "2024-05-01T10:00:00Z", **kw}


# --------------------------------------------------------------------------- 1. instants


def _range_error(errors: list[dict[str, Any]], field: str) -> None:
    err = error_of(errors)
    assert err["extensions"]["code"] == "BAD_USER_INPUT", err
    assert err["extensions"]["field"] == field, err
    assert "0001-01-02" in err["message"] and "9999-12-30" in err["message"], err


@pytest.mark.parametrize(("op", "make", "field"), [
    (ADD_RELATION, lambda u: {"in": relation(u, validFrom=EARLY)}, "validFrom"),
    (ADD_RELATION, lambda u: {"in": relation(u, validFrom="2024-01-01",
                                             validUntil=LATE)}, "validUntil"),
    (ADD_RELATIONS, lambda u: {"ins": [relation(u), relation(u, "Go", validFrom=LATE)]},
     "inputs[1].validFrom"),
    (ADD_EPISODE, lambda u: {"in": episode(u, occurredAt=LATE)}, "occurredAt"),
    (ADD_EPISODE, lambda u: {"in": {**episode(u, occurredAt=EARLY), "content": None,
                                    "messages": [{"role": "user", "content": "I use Go"}]}},
     "occurredAt"),
    (ADD_EPISODES, lambda u: {"ins": [episode(u), episode(u, "Bo uses Go.", occurredAt=EARLY)]},
     "inputs[1].occurredAt"),
], ids=["relation-from", "relation-until", "relations", "episode", "messages", "episodes"])
def test_out_of_range_instant_is_rejected_before_any_write(api: Api, store: Any, user: str,
                                                           op: str, make: Any,
                                                           field: str) -> None:
    _range_error(api.errors(op, make(user)), field)
    assert is_empty(store, user)
    # the user's memory still works
    api.data(ADD_RELATION, {"in": relation(user)})
    assert len(api.data(RELATIONS, {"u": user})["relations"]) == 1


@pytest.mark.parametrize(("vars_", "field"), [
    ({"asOf": EARLY}, "asOf"), ({"knownAt": LATE}, "knownAt"),
    ({"referenceTime": LATE}, "referenceTime"),
    ({"between": {"start": EARLY, "end": "2024-01-01"}}, "between.start"),
    ({"between": {"start": "2024-01-01", "end": LATE}}, "between.end"),
])
def test_out_of_range_instant_in_recall_is_a_user_error(api: Api, user: str,
                                                        vars_: dict[str, Any],
                                                        field: str) -> None:
    api.data(ADD_RELATION, {"in": relation(user)})
    _range_error(api.errors(RECALL, {"in": {"userId": user, "query": "what does Ann prefer",
                                            **vars_}}), field)


def test_out_of_range_instant_in_reads_is_a_user_error(api: Api, user: str) -> None:
    rel = api.data(ADD_RELATION, {"in": relation(user)})["addRelation"]
    _range_error(api.errors(RELATIONS, {"u": user, "a": EARLY}), "asOf")
    _range_error(api.errors(RELATIONS, {"u": user, "k": LATE}), "knownAt")
    _range_error(api.errors("query($u: ID!, $id: ID!, $k: DateTime) { relation(userId: $u, "
                            "id: $id, knownAt: $k) { id } }",
                            {"u": user, "id": rel["id"], "k": LATE}), "knownAt")
    errors = api.errors(ENTITIES, {"u": user, "a": LATE})
    assert {e["extensions"]["code"] for e in errors} == {"BAD_USER_INPUT"}, errors


@pytest.mark.parametrize("text", ["9999-12-30T00:00:00Z", "0001-01-02T00:00:00Z"])
def test_reference_time_at_the_range_ends_answers(api: Api, user: str, text: str) -> None:
    api.data(ADD_EPISODE, {"in": episode(user, "I moved to Berlin last year.")})
    for query in ("where did I move next year", "what happened 3 years ago",
                  "what did I do last month", "anything since 1999"):
        api.data(RECALL, {"in": {"userId": user, "query": query, "referenceTime": text}})


@pytest.mark.parametrize("text", ["9999-12-30T00:00:00Z", "0001-01-02T00:00:00Z"])
def test_episodes_at_the_range_ends_store_only_storable_times(api: Api, store: Any, user: str,
                                                              text: str) -> None:
    """Times read from the text ("3 years ago" in year 1) never leave the range."""
    for i, content in enumerate(["I moved to Berlin 3 years ago.", "I use Vue since 2019.",
                                 "Tomorrow I start using Go.", "I live in Paris since 1999.",
                                 "I moved to Rome last year.", "I started Rust next year."]):
        api.data(ADD_EPISODE, {"in": episode(user, content, occurredAt=text,
                                             sessionId=f"s{i}")})
    for row in store.export_nodes("Relation", user, 0, 1000):
        assert to_ms(MIN_INSTANT) <= row["validFrom"] <= to_ms(MAX_INSTANT), row
    rels = api.data(RELATIONS, {"u": user, "a": text})["relations"]
    assert rels


def test_instants_at_the_range_ends_round_trip(api: Api, user: str) -> None:
    low, high = "0001-01-02T00:00:00+00:00", "9999-12-30T23:59:59.999000+00:00"
    api.data(ADD_RELATION, {"in": relation(user, validFrom=low, validUntil=high)})
    rel = api.data(RELATIONS, {"u": user, "a": "2024-01-01"})["relations"][0]
    assert (rel["validFrom"], rel["validUntil"]) == (low, high)
    out = api.data(ADD_EPISODE, {"in": episode(user, occurredAt=high)})["addEpisode"]
    assert out["episode"]["occurredAt"] == high
    # the same offset-shifted instant, given at another offset, is the same ms
    assert to_ms(datetime.fromisoformat("0001-01-02T10:00:00+10:00")) == to_ms(MIN_INSTANT)
    assert from_ms(to_ms(MAX_INSTANT)) == MAX_INSTANT


def test_stored_out_of_range_instants_do_not_take_the_memory_down(
        api: Api, store: Any, user: str, caplog: pytest.LogCaptureFixture) -> None:
    ok = api.data(ADD_RELATION, {"in": relation(user, "Go")})["addRelation"]
    bad = api.data(ADD_RELATION, {"in": relation(user, "Rust", predicate="uses")})["addRelation"]
    ep = api.data(ADD_EPISODE, {"in": episode(user, "Ann uses Vim.")})["addEpisode"]["episode"]
    # what an older graphmem stored, or a hand edit: values no datetime can hold
    plan = WritePlan(user_id=user, at=0)
    plan.update("Relation", bad["id"], {"validFrom": -10**17, "recordedAt": -10**17})
    plan.update("Episode", ep["id"], {"occurredAt": 10**17, "recordedAt": 10**17})
    store.apply(plan)
    rels = api.data(RELATIONS, {"u": user})["relations"]
    assert ok["id"] in {r["id"] for r in rels}
    by_id = {r["id"]: r for r in rels}
    # read as the nearest bound, and reported
    assert by_id[bad["id"]]["validFrom"] == "0001-01-02T00:00:00+00:00"
    assert "stored instant -100000000000000000 is outside" in caplog.text
    page = api.data(EPISODES, {"u": user})["episodes"]
    assert page["total"] == 1
    assert page["items"][0]["occurredAt"] == "9999-12-30T23:59:59.999000+00:00"
    api.data(RECALL, {"in": {"userId": user, "query": "what does Ann use"}})
    api.data(ENTITIES, {"u": user})
    # and the bad records can still be found and forgotten
    forget = "mutation($u: ID!, $id: ID!) { forget(userId: $u, id: $id) }"
    assert api.data(forget, {"u": user, "id": ep["id"]})["forget"] is True
    assert api.data(forget, {"u": user, "id": bad["id"]})["forget"] is True


def test_stored_instants_that_are_not_numbers_do_not_take_the_memory_down(
        api: Api, store: Any, user: str) -> None:
    ok = api.data(ADD_EPISODE, {"in": episode(user, "Ann uses Vim.")})["addEpisode"]["episode"]
    bad = api.data(ADD_EPISODE, {"in": episode(user, "Ann uses Emacs at work.",
                                               sourceRef="m2")})["addEpisode"]["episode"]
    rel = api.data(ADD_RELATION, {"in": relation(user, "Go")})["addRelation"]
    # a hand edit or a foreign tool: text where an instant belongs
    plan = WritePlan(user_id=user, at=0)
    plan.update("Episode", bad["id"], {"occurredAt": "yesterday", "recordedAt": "x"})
    plan.update("Relation", rel["id"], {"validFrom": "2024", "recordedAt": "x"})
    store.apply(plan)
    found = api.data(RECALL, {"in": {"userId": user, "query": "what does Ann use"}})
    assert found["recall"]["items"]
    page = api.data(EPISODES, {"u": user})["episodes"]
    assert {e["id"] for e in page["items"]} >= {ok["id"]}
    api.data(RELATIONS, {"u": user})
    api.data(ENTITIES, {"u": user})
    forget = "mutation($u: ID!, $id: ID!) { forget(userId: $u, id: $id) }"
    assert api.data(forget, {"u": user, "id": bad["id"]})["forget"] is True


def test_from_ms_never_raises_on_a_stored_value() -> None:
    for value in (10**18, -10**18, 2**70, float("inf"), float("nan"), "2024", [1]):
        assert MIN_INSTANT <= from_ms(value) <= MAX_INSTANT  # type: ignore[arg-type, operator]
    assert from_ms(0) == datetime(1970, 1, 1, tzinfo=UTC)
    assert to_ms(datetime(1969, 12, 31, 23, 59, 59, 999500, tzinfo=UTC)) == -1


# --------------------------------------------------------------------------- 2. strings


NUL, SURROGATE, ESC, C1 = "\x00", "\ud800", "\x1b", "\x85"


@pytest.mark.parametrize(("make", "field"), [
    (lambda u, c: episode(u, f"Ann uses Vue.{c}"), "content"),
    (lambda u, c: episode(u, source=f"chat{c}"), "source"),
    (lambda u, c: episode(u, sourceRef=f"m{c}1"), "sourceRef"),
    (lambda u, c: episode(u, sessionId=f"s{c}1"), "sessionId"),
    (lambda u, c: episode(u, speaker=f"Ann{c}"), "speaker"),
    (lambda u, c: episode(u, role=f"user{c}"), "role"),
    (lambda u, c: episode(u, kind=f"event{c}"), "kind"),
    (lambda u, c: {**episode(u), "content": None, "messages": [
        {"role": "user", "content": "Ann uses Vue."},
        {"role": "assistant", "content": f"Noted{c}"}]}, "messages[1].content"),
    (lambda u, c: {**episode(u), "content": None, "messages": [
        {"role": "user", "content": "Ann uses Vue.", "name": f"Ann{c}"}]}, "messages[0].name"),
    (lambda u, c: {**episode(u), "content": None, "messages": [
        {"role": f"user{c}", "content": "Ann uses Vue."}]}, "messages[0].role"),
], ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("char", [NUL, SURROGATE, ESC, C1], ids=["nul", "surrogate", "esc", "c1"])
def test_unstorable_characters_in_an_episode_are_rejected(api: Api, store: Any, user: str,
                                                          make: Any, field: str,
                                                          char: str) -> None:
    err = error_of(api.errors(ADD_EPISODE, {"in": make(user, char)}))
    assert err["extensions"] == {"code": "BAD_USER_INPUT", "field": field}, err
    assert is_empty(store, user)
    # in a batch, the item is named and nothing of the batch is written
    err = error_of(api.errors(ADD_EPISODES, {"ins": [episode(user, "Bo uses Go."),
                                                     make(user, char)]}))
    assert err["extensions"] == {"code": "BAD_USER_INPUT", "field": f"inputs[1].{field}"}, err
    assert is_empty(store, user)


@pytest.mark.parametrize("field", ["subject", "predicate", "object", "statement", "category",
                                   "sourceRef"])
@pytest.mark.parametrize("char", [NUL, SURROGATE, C1], ids=["nul", "surrogate", "c1"])
def test_unstorable_characters_in_a_relation_are_rejected(api: Api, store: Any, user: str,
                                                          field: str, char: str) -> None:
    bad = relation(user, **{field: f"x{char}y"})
    err = error_of(api.errors(ADD_RELATION, {"in": bad}))
    assert err["extensions"] == {"code": "BAD_USER_INPUT", "field": field}, err
    err = error_of(api.errors(ADD_RELATIONS, {"ins": [relation(user, "Go"), bad]}))
    assert err["extensions"] == {"code": "BAD_USER_INPUT", "field": f"inputs[1].{field}"}, err
    assert is_empty(store, user)


def test_tabs_and_newlines_are_text(api: Api, user: str) -> None:
    out = api.data(ADD_EPISODE, {"in": episode(user, "Ann uses Vue.\n\tand Go\r\n")})
    assert out["addEpisode"]["episode"]["content"] == "Ann uses Vue.\n\tand Go"
    api.data(ADD_RELATION, {"in": relation(user, statement="Ann\tprefers\nVue")})


@pytest.mark.parametrize("char", [NUL, SURROGATE], ids=["nul", "surrogate"])
@pytest.mark.parametrize(("op", "make", "field"), [
    ("query($u: ID!, $id: ID!) { relation(userId: $u, id: $id) { id } }",
     lambda u, c, i: {"u": u + c, "id": i}, "userId"),
    ("query($u: ID!, $id: ID!) { relation(userId: $u, id: $id) { id } }",
     lambda u, c, i: {"u": u, "id": i + c}, "id"),
    ("query($u: ID!, $id: ID!) { entity(userId: $u, id: $id) { id } }",
     lambda u, c, i: {"u": u, "id": "ent_x" + c}, "id"),
    ("query($u: ID!, $id: ID!) { history(userId: $u, relationId: $id) { id } }",
     lambda u, c, i: {"u": u, "id": i + c}, "relationId"),
    ("mutation($u: ID!, $id: ID!) { forget(userId: $u, id: $id) }",
     lambda u, c, i: {"u": u, "id": i + c}, "id"),
    ("mutation($u: ID!, $id: ID!) { restore(userId: $u, id: $id) }",
     lambda u, c, i: {"u": u + c, "id": i}, "userId"),
    ("query($u: ID!, $id: String!) { relations(userId: $u, subject: $id) { id } }",
     lambda u, c, i: {"u": u, "id": "Ann" + c}, "subject"),
    ("query($u: ID!, $id: ID!) { episodes(userId: $u, sessionId: $id) { total } }",
     lambda u, c, i: {"u": u, "id": "s" + c}, "sessionId"),
    ("query($u: ID!, $id: String!) { entities(userId: $u, name: $id) { total } }",
     lambda u, c, i: {"u": u, "id": "Ann" + c}, "name"),
    ("query($u: ID!, $id: String!) { recall(input: {userId: $u, query: $id}) { items { id } } }",
     lambda u, c, i: {"u": u, "id": "Ann" + c}, "query"),
    ("query($u: ID!) { stats(userId: $u) { episodes } }",
     lambda u, c, i: {"u": u + c}, "userId"),
], ids=["relation-user", "relation-id", "entity", "history", "forget", "restore", "relations",
        "episodes", "entities", "recall", "stats"])
def test_unstorable_characters_in_read_arguments_are_user_errors(api: Api, user: str,
                                                                 char: str, op: str,
                                                                 make: Any,
                                                                 field: str) -> None:
    rel = api.data(ADD_RELATION, {"in": relation(user)})["addRelation"]
    err = error_of(api.errors(op, make(user, char, rel["id"])))
    assert err["extensions"]["code"] == "BAD_USER_INPUT", err
    assert err["extensions"]["field"].endswith(field), err


# --------------------------------------------------------------------------- 3. atomicity


def _node(node_id: str, user: str, **props: Any) -> NodeWrite:
    return NodeWrite(node_id, {"id": node_id, "userId": user, **props}, [0.1] * DIM)


def _seed(store: Any, user: str) -> None:
    plan = WritePlan(user_id=user, at=1)
    plan.episodes.append(_node(f"epi_{user}_1", user, content="seed", occurredAt=1))
    plan.entities.append(_node(f"ent_{user}_1", user, name="Ann", normName="ann"))
    plan.link("MENTIONS", f"epi_{user}_1", f"ent_{user}_1", {"at": 1})
    store.apply(plan)


def _failing_plan(user: str, where: str) -> WritePlan:
    """A plan touching every kind of step, whose ``where`` step the database rejects at run
    time (a map is no property value in either database)."""
    bad = {"nested": {"not": "storable"}}
    plan = WritePlan(user_id=user, at=2)
    plan.episodes.append(_node(f"epi_{user}_2", user, content="new", occurredAt=2))
    plan.entities.append(_node(f"ent_{user}_2", user, name="Bob", normName="bob",
                               **(bad if where == "entities" else {})))
    plan.relations.append(_node(f"rel_{user}_2", user, statement="Bob knows Ann"))
    plan.update("Entity", f"ent_{user}_1", {"name": "Ann B", **(bad if where == "updates"
                                                                 else {})})
    plan.unlink("MENTIONS", f"epi_{user}_1", f"ent_{user}_1")
    plan.link("SUBJECT_OF", f"ent_{user}_2", f"rel_{user}_2",
              bad if where == "links" else {"at": 2})
    plan.link("MENTIONS", f"epi_{user}_2", f"ent_{user}_2", {"at": 2})
    return plan


@pytest.mark.parametrize("where", ["entities", "updates", "links"])
def test_a_plan_failing_in_the_store_leaves_it_unchanged(store: Any, user: str,
                                                         where: str) -> None:
    _seed(store, user)
    before = snapshot(store, user)
    assert before["Episode"] and before["MENTIONS"]
    with pytest.raises(GraphMemError):
        store.apply(_failing_plan(user, where))
    assert snapshot(store, user) == before
    # the same plan without the bad value goes in whole
    plan = _failing_plan(user, "nowhere")
    store.apply(plan)
    after = snapshot(store, user)
    assert len(after["Episode"]) == 2 and len(after["Relation"]) == 1
    assert len(after["SUBJECT_OF"]) == 1 and len(after["MENTIONS"]) == 2


def test_a_plan_decided_on_an_older_version_is_refused_whole(store: Any, user: str) -> None:
    """Two writers read the user's version, both decide; the second to apply is refused
    (ConflictError, nothing written) so that it plans again on what the first wrote."""
    _seed(store, user)
    seen = store.write_version(user)
    first = _failing_plan(user, "nowhere")
    first.base_version = seen
    late = WritePlan(user_id=user, at=3, base_version=seen)
    late.entities.append(_node(f"ent_{user}_3", user, name="Cy", normName="cy"))
    store.apply(first)
    assert store.write_version(user) == seen + 1
    before = snapshot(store, user)
    with pytest.raises(ConflictError):
        store.apply(late)
    assert snapshot(store, user) == before
    assert store.write_version(user) == seen + 1
    late.base_version = store.write_version(user)
    store.apply(late)
    assert len(snapshot(store, user)["Entity"]) == len(before["Entity"]) + 1


class _PoisonedWrites:
    """The real store, except that each entity a plan writes carries a value the database
    rejects while running the plan (after the episodes before it were written)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.name = inner.name

    def apply(self, plan: WritePlan) -> None:
        for n in plan.entities:
            n.props["nested"] = {"not": "storable"}
        self._inner.apply(plan)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._inner, attr)


def test_a_write_failing_in_the_store_writes_nothing_through_the_api(
        store: Any, user: str, clock: FakeClock) -> None:
    with serve_api(make_service(_PoisonedWrites(store), clock)) as api:
        errors = api.errors(ADD_EPISODE, {"in": episode(user, "I live in Paris, I use Vue.")})
        assert error_of(errors)["extensions"]["code"] == "INTERNAL_SERVER_ERROR"
        errors = api.errors(ADD_RELATION, {"in": relation(user)})
        assert error_of(errors)["extensions"]["code"] == "INTERNAL_SERVER_ERROR"
    assert is_empty(store, user)


def test_full_text_store_failures_propagate(tmp_path: Path) -> None:
    store = FalkorStore(tmp_path / "closed", dim=DIM)
    store.open()
    store.close()
    with pytest.raises(UnavailableError):
        store.fulltext_search("Relation", "u", "what does Ann use", 5)


def test_full_text_search_takes_any_text(store: Any, user: str) -> None:
    """Query syntax of either index is never passed through: nothing is rejected."""
    service = make_service(store)
    from graphmem.inputs import RelationIn
    service.add_relation(RelationIn(user, "Ann", "uses", "Vue"))
    for text in ("AND", "NOT Ann", "Ann OR", "TO", "a:b", "Ann~2 ^3", "(Vue", "'\"", "*",
                 "ann AND NOT vue", "\\", "x/y", "%%", "{Vue}", "@name:x", "-Vue", "Vue|Ann",
                 "咖啡 AND 茶", "ǅ", "uses uses uses"):
        for label in ("Relation", "Entity", "Episode"):
            store.fulltext_search(label, user, text, 5)
    assert store.fulltext_search("Relation", user, "Vue", 5)


# --------------------------------------------------------------------------- 4. episode ids


def test_episodes_differing_in_case_or_punctuation_are_both_kept(api: Api, user: str) -> None:
    first = api.data(ADD_EPISODE, {"in": episode(user, "I like Vue.")})["addEpisode"]
    second = api.data(ADD_EPISODE, {"in": episode(user, "i like vue")})["addEpisode"]
    assert not first["duplicate"] and not second["duplicate"]
    assert first["episode"]["id"] != second["episode"]["id"]
    again = api.data(ADD_EPISODE, {"in": episode(user, "i like vue")})["addEpisode"]
    assert again["duplicate"] and again["episode"]["id"] == second["episode"]["id"]
    page = api.data(EPISODES, {"u": user})["episodes"]
    assert sorted(i["content"] for i in page["items"]) == ["I like Vue.", "i like vue"]


# --------------------------------------------------------------------------- 5. the data dir


_HOLDER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from graphmem.store.falkor import FalkorStore
    store = FalkorStore(Path(sys.argv[1]), dim=8)
    store.open()
    print("open", flush=True)
    sys.stdin.readline()
    print(store.count("Episode", "u"), flush=True)
    store.close()
""")


def test_a_second_open_refuses_while_the_owner_lives_even_without_the_lock_file(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(data)], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline().strip() == "open"
        (data / LOCK_NAME).unlink()
        second = FalkorStore(data, dim=8)
        started = time.monotonic()
        with pytest.raises(UnavailableError, match="in use"):
            second.open()
        assert time.monotonic() - started < 30
        # the first server's store still answers
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "(0, 0)"
        assert holder.wait(timeout=60) == 0
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    # once the owner is gone, the directory opens again
    third = FalkorStore(data, dim=8)
    third.open()
    third.close()
