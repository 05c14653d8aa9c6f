"""Every query and mutation through the real ASGI app, good and bad inputs."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphmem.store.falkor import FalkorStore

from .api_support import Api, error_of, make_service, serve_api
from .conftest import FakeClock

ADD_EPISODE = """mutation($in: EpisodeInput!) { addEpisode(input: $in) {
  episode { id content occurredAt sessionId sourceRef status }
  relations { id statement status validFrom sources { id sourceRef occurredAt } }
  entities { id name }
  engine error redacted duplicate skippedLowConfidence } }"""

ADD_RELATION = """mutation($in: RelationInput!) { addRelation(input: $in) {
  id subject predicate object statement status validFrom validUntil recordedAt expiredAt
  confidence importance category exclusive sourceRefs } }"""

RELATIONS = """query($u: ID!, $asOf: DateTime, $knownAt: DateTime, $h: Boolean, $p: String) {
  relations(userId: $u, asOf: $asOf, knownAt: $knownAt, includeHistory: $h, predicate: $p) {
    id object status validFrom validUntil
    supersedes { id object } supersededBy { id object } disputes { id object } } }"""


@pytest.fixture
def api(embedded_store: FalkorStore, clock: FakeClock) -> Iterator[Api]:
    with serve_api(make_service(embedded_store, clock)) as client:
        yield client


def prefers(api: Api, user: str, obj: str, start: str | None, **extra: Any) -> dict[str, Any]:
    data = {"userId": user, "subject": "user", "predicate": "prefers", "object": obj,
            "exclusive": True, **extra}
    if start is not None:
        data["validFrom"] = start
    return api.data(ADD_RELATION, {"in": data})["addRelation"]


# --------------------------------------------------------------------------- episodes


def test_add_episode_learns_and_is_idempotent(api: Api, user: str) -> None:
    ep = {"userId": user, "occurredAt": "2025-01-02T10:00:00+02:00", "sessionId": "s1",
          "content": "I prefer tea over coffee. I work at Acme.", "sourceRef": "msg-1"}
    out = api.data(ADD_EPISODE, {"in": ep})["addEpisode"]
    assert out["duplicate"] is False and out["engine"] == "rules"
    assert out["episode"]["occurredAt"] == "2025-01-02T08:00:00+00:00"  # offset kept, as UTC
    assert out["episode"]["sessionId"] == "s1" and out["episode"]["status"] == "ACTIVE"
    statements = {r["statement"] for r in out["relations"]}
    assert any("tea" in s for s in statements), statements
    assert all(r["sources"][0]["sourceRef"] == "msg-1" for r in out["relations"])
    assert {"Acme"} <= {e["name"] for e in out["entities"]}
    again = api.data(ADD_EPISODE, {"in": ep})["addEpisode"]
    assert again["duplicate"] is True and again["episode"]["id"] == out["episode"]["id"]


def test_add_episode_with_messages_and_batch(api: Api, user: str) -> None:
    q = """mutation($ins: [EpisodeInput!]!) { addEpisodes(inputs: $ins) {
      duplicate episode { content kind } } }"""
    ins = [{"userId": user, "occurredAt": "2025-02-01T09:00:00Z",
            "messages": [{"role": "human", "content": "I live in Berlin", "name": "Ana"},
                         {"role": "ai", "content": "Noted!"}]},
           {"userId": user, "occurredAt": "2025-02-02", "content": "I started learning Rust"}]
    out = api.data(q, {"ins": ins})["addEpisodes"]
    assert [o["duplicate"] for o in out] == [False, False]
    assert out[0]["episode"]["kind"] == "conversation"
    assert "Berlin" in out[0]["episode"]["content"]


@pytest.mark.parametrize(("episode", "field"), [
    ({"occurredAt": "2025-01-01T00:00:00Z"}, "content"),  # neither content nor messages
    ({"occurredAt": "2025-01-01T00:00:00Z", "content": "x",
      "messages": [{"role": "user", "content": "y"}]}, "content"),  # both
    ({"occurredAt": "2025-01-01T00:00:00Z", "content": "   "}, "content"),
    ({"occurredAt": "2025-01-01T00:00:00Z", "content": "x", "sessionId": ""}, "sessionId"),
    ({"occurredAt": "2025-01-01T00:00:00Z", "content": "x", "kind": "poem"}, "kind"),
    ({"occurredAt": "2025-01-01T00:00:00Z",
      "messages": [{"role": "user", "content": ""}]}, "messages[0].content"),
    ({"occurredAt": "yesterday-ish", "content": "x"}, "in.occurredAt"),
])
def test_add_episode_bad_input_names_the_field(api: Api, user: str, episode: dict[str, Any],
                                               field: str) -> None:
    err = error_of(api.errors(ADD_EPISODE, {"in": {"userId": user, **episode}}))
    assert err["extensions"]["code"] == "BAD_USER_INPUT"
    assert err["extensions"]["field"] == field
    assert field.split(".")[-1] in err["message"]


def test_bad_literal_value_names_the_field(api: Api, user: str) -> None:
    q = f'mutation {{ addEpisode(input: {{userId: "{user}", occurredAt: "nope", content: "x"}}) ' \
        '{ duplicate } }'
    err = error_of(api.errors(q))
    assert err["extensions"] == {"code": "BAD_USER_INPUT", "field": "input.occurredAt"}
    assert "input.occurredAt" in err["message"]


def test_batch_errors_name_the_item(api: Api, user: str) -> None:
    q = "mutation($ins: [EpisodeInput!]!) { addEpisodes(inputs: $ins) { duplicate } }"
    ins = [{"userId": user, "occurredAt": "2025-01-01", "content": "ok"},
           {"userId": user, "occurredAt": "2025-01-01", "content": ""}]
    err = error_of(api.errors(q, {"ins": ins}))
    assert err["extensions"]["field"] == "inputs[1].content"
    assert error_of(api.errors(q, {"ins": []}))["extensions"]["field"] == "inputs"


def test_missing_required_variable_is_a_user_error(api: Api) -> None:
    err = error_of(api.errors(ADD_EPISODE, {}))
    assert err["extensions"]["code"] == "BAD_USER_INPUT" and err["extensions"]["field"] == "in"


# --------------------------------------------------------------------------- relations & time


def test_relations_as_of_known_at_and_history(api: Api, user: str, clock: FakeClock) -> None:
    vue = prefers(api, user, "Vue", "2024-01-01T00:00:00Z")
    believed_vue_only = clock.now
    clock.tick(3600)
    react = prefers(api, user, "React", "2025-01-01T00:00:00Z")
    assert react["status"] == "ACTIVE" and react["exclusive"] is True

    def objects(**vars: Any) -> list[str]:
        return [r["object"] for r in api.data(RELATIONS, {"u": user, **vars})["relations"]]

    assert objects() == ["React"]
    assert objects(asOf="2024-06-01T00:00:00Z") == ["Vue"]
    assert objects(asOf="2023-06-01") == []
    # What did we believe at the time only Vue was known? Vue, still open in 2025.
    assert objects(asOf="2025-06-01", knownAt=believed_vue_only.isoformat()) == ["Vue"]
    rels = api.data(RELATIONS, {"u": user, "asOf": "2024-06-01"})["relations"]
    assert rels[0]["validUntil"] == "2025-01-01T00:00:00+00:00"
    assert rels[0]["status"] == "SUPERSEDED"
    assert rels[0]["supersededBy"] == [{"id": react["id"], "object": "React"}]
    now = api.data(RELATIONS, {"u": user})["relations"][0]
    assert now["supersedes"] == [{"id": vue["id"], "object": "Vue"}]
    for rid in (vue["id"], react["id"]):  # the chain, from either member, oldest first
        chain = api.data("query($u: ID!, $r: ID!) { history(userId: $u, relationId: $r) "
                         "{ id object } }", {"u": user, "r": rid})["history"]
        assert [c["object"] for c in chain] == ["Vue", "React"]
    assert [r["object"] for r in api.data(RELATIONS, {"u": user, "h": True})["relations"]] \
        == ["Vue", "React"]


def test_same_start_conflict_is_disputed(api: Api, user: str) -> None:
    a = prefers(api, user, "Tea", "2025-03-01T00:00:00Z")
    b = prefers(api, user, "Coffee", "2025-03-01T00:00:00Z")
    rels = api.data(RELATIONS, {"u": user, "asOf": "2025-04-01"})["relations"]
    assert {r["object"] for r in rels} == {"Tea", "Coffee"}
    assert {r["status"] for r in rels} == {"DISPUTED"}
    tea = next(r for r in rels if r["object"] == "Tea")
    assert tea["disputes"] == [{"id": b["id"], "object": "Coffee"}] and tea["id"] == a["id"]


def test_add_relation_fields_and_batch(api: Api, user: str) -> None:
    r = api.data(ADD_RELATION, {"in": {
        "userId": user, "subject": "Ana", "predicate": "works_at", "object": "Acme",
        "validFrom": "2020-05-01T08:00:00", "validUntil": "2023-01-01T00:00:00+01:00",
        "confidence": 0.7, "importance": 0.9, "category": "fact", "sourceRef": "crm-9"}})
    rel = r["addRelation"]
    assert rel["validFrom"] == "2020-05-01T08:00:00+00:00"  # naive input read as UTC
    assert rel["validUntil"] == "2022-12-31T23:00:00+00:00"
    assert rel["sourceRefs"] == ["crm-9"] and rel["importance"] == 0.9
    q = "mutation($ins: [RelationInput!]!) { addRelations(inputs: $ins) { object " \
        "sources { id sourceRef } } }"
    out = api.data(q, {"ins": [
        {"userId": user, "subject": "Ana", "predicate": "likes", "object": "jazz",
         "sourceRef": "m-1"},
        {"userId": user, "subject": "Ana", "predicate": "likes", "object": "chess"}]})
    assert [o["object"] for o in out["addRelations"]] == ["jazz", "chess"]
    assert out["addRelations"][0]["sources"][0]["sourceRef"] == "m-1"


@pytest.mark.parametrize(("patch", "field"), [
    ({"subject": ""}, "subject"),
    ({"predicate": " "}, "predicate"),
    ({"confidence": 1.5}, "confidence"),
    ({"importance": -0.1}, "importance"),
    ({"validFrom": "2025-01-02", "validUntil": "2025-01-01"}, "validUntil"),
    ({"userId": ""}, "userId"),
    ({"subject": "x" * 600}, "subject"),
])
def test_add_relation_bad_input(api: Api, user: str, patch: dict[str, Any], field: str) -> None:
    data = {"userId": user, "subject": "a", "predicate": "b", "object": "c", **patch}
    err = error_of(api.errors(ADD_RELATION, {"in": data}))
    assert err["extensions"] == {"code": "BAD_USER_INPUT", "field": field}
    assert err["message"].startswith(field + ":")


def test_relation_by_id_and_limits(api: Api, user: str) -> None:
    r = prefers(api, user, "Go", "2025-01-01")
    q = "query($u: ID!, $id: ID!) { relation(userId: $u, id: $id) { object } }"
    assert api.data(q, {"u": user, "id": r["id"]})["relation"]["object"] == "Go"
    err = error_of(api.errors(q, {"u": user, "id": "rel_nope"}))
    assert err["extensions"]["code"] == "NOT_FOUND"
    for bad in (0, 1001):
        err = error_of(api.errors("query($u: ID!, $l: Int!) { relations(userId: $u, limit: $l) "
                                  "{ id } }", {"u": user, "l": bad}))
        assert err["extensions"]["field"] == "limit"
    err = error_of(api.errors('{ relations(userId: "nobody-at-all") { id } }'))
    assert err["extensions"]["code"] == "NOT_FOUND"


def test_forget_and_restore(api: Api, user: str) -> None:
    r = prefers(api, user, "Rust", "2025-01-01")
    mut = "mutation($u: ID!, $id: ID!) { %s(userId: $u, id: $id) }"
    assert api.data(mut % "forget", {"u": user, "id": r["id"]})["forget"] is True
    assert api.data(mut % "forget", {"u": user, "id": r["id"]})["forget"] is False
    assert api.data(RELATIONS, {"u": user})["relations"] == []
    hist = api.data(RELATIONS, {"u": user, "h": True})["relations"]
    assert [h["status"] for h in hist] == ["FORGOTTEN"]
    assert api.data(mut % "restore", {"u": user, "id": r["id"]})["restore"] is True
    assert [x["object"] for x in api.data(RELATIONS, {"u": user})["relations"]] == ["Rust"]
    err = error_of(api.errors(mut % "forget", {"u": user, "id": "rel_missing"}))
    assert err["extensions"]["code"] == "NOT_FOUND"
    err = error_of(api.errors(mut % "forget", {"u": user, "id": ""}))
    assert err["extensions"]["field"] == "id"


# --------------------------------------------------------------------------- recall


RECALL = """query($in: RecallInput!) { recall(input: $in) {
  items { kind id text score validFrom validUntil occurredAt status
          scores { vector fulltext graph recency importance frequency temporal fused }
          sources { id sourceRef occurredAt } relation { id object } episode { id } }
  conflicts { ids warning relations { id } }
  temporalWindow { start end phrase kind } coldStart tookMs } }"""


def test_recall_items_provenance_and_time(api: Api, user: str) -> None:
    assert api.data(RECALL, {"in": {"userId": user, "query": "tea"}})["recall"]["coldStart"]
    api.data(ADD_EPISODE, {"in": {"userId": user, "occurredAt": "2024-05-01T12:00:00Z",
                                  "content": "I prefer green tea in the morning.",
                                  "sourceRef": "turn-7"}})
    out = api.data(RECALL, {"in": {"userId": user, "query": "what tea do I prefer?"}})["recall"]
    assert out["coldStart"] is False and out["tookMs"] >= 0
    assert out["items"], out
    refs = {s["sourceRef"] for it in out["items"] for s in it["sources"]}
    assert "turn-7" in refs
    rel_items = [it for it in out["items"] if it["kind"] == "RELATION"]
    assert rel_items and rel_items[0]["relation"]["id"] == rel_items[0]["id"]
    ep_items = [it for it in out["items"] if it["kind"] == "EPISODE"]
    assert ep_items and ep_items[0]["episode"]["id"] == ep_items[0]["id"]
    assert ep_items[0]["occurredAt"] == "2024-05-01T12:00:00+00:00"
    only = api.data(RECALL, {"in": {"userId": user, "query": "tea", "kinds": ["EPISODE"]}})
    assert {it["kind"] for it in only["recall"]["items"]} == {"EPISODE"}
    before = api.data(RECALL, {"in": {"userId": user, "query": "tea", "kinds": ["RELATION"],
                                      "asOf": "2024-01-01"}})
    assert before["recall"]["items"] == []  # not yet true then
    window = api.data(RECALL, {"in": {"userId": user, "query": "tea", "between": {
        "start": "2024-04-01", "end": "2024-06-01"}}})["recall"]["temporalWindow"]
    assert window["start"] == "2024-04-01T00:00:00+00:00" and window["kind"]


def test_recall_reads_the_time_window_from_the_query(api: Api, user: str) -> None:
    prefers(api, user, "Vue", "2023-01-01T00:00:00Z")
    prefers(api, user, "React", "2024-06-01T00:00:00Z")
    out = api.data(RECALL, {"in": {"userId": user, "query": "what did I prefer last year?",
                                   "referenceTime": "2024-03-01T12:00:00Z",
                                   "kinds": ["RELATION"]}})["recall"]
    w = out["temporalWindow"]
    assert (w["start"], w["end"]) == ("2023-01-01T00:00:00+00:00", "2024-01-01T00:00:00+00:00")
    assert "last year" in w["phrase"]
    assert [it["text"] for it in out["items"]] == ["user prefers Vue"]
    now = api.data(RECALL, {"in": {"userId": user, "query": "what do I prefer?",
                                   "kinds": ["RELATION"]}})["recall"]
    assert now["temporalWindow"] is None
    assert [it["text"] for it in now["items"]] == ["user prefers React"]
    hist = api.data(RECALL, {"in": {"userId": user, "query": "what do I prefer?",
                                    "kinds": ["RELATION"], "includeHistory": True}})["recall"]
    assert {(it["text"], it["status"]) for it in hist["items"]} == {
        ("user prefers Vue", "SUPERSEDED"), ("user prefers React", "ACTIVE")}


@pytest.mark.parametrize(("patch", "field"), [
    ({"limit": 0}, "limit"), ({"limit": 101}, "limit"), ({"query": ""}, "query"),
    ({"hops": 9}, "hops"), ({"userId": " "}, "userId"),
    ({"between": {"start": "2024-02-01", "end": "2024-01-01"}}, "between"),
])
def test_recall_bad_input(api: Api, user: str, patch: dict[str, Any], field: str) -> None:
    err = error_of(api.errors(RECALL, {"in": {"userId": user, "query": "x", **patch}}))
    assert err["extensions"] == {"code": "BAD_USER_INPUT", "field": field}


def test_recall_reports_conflicts(api: Api, user: str) -> None:
    a = prefers(api, user, "tea", "2025-03-01")
    b = prefers(api, user, "coffee", "2025-03-01")
    out = api.data(RECALL, {"in": {"userId": user, "query": "user prefers tea coffee",
                                   "asOf": "2025-04-01"}})["recall"]
    assert out["conflicts"], out
    assert set(out["conflicts"][0]["ids"]) == {a["id"], b["id"]}
    assert {r["id"] for r in out["conflicts"][0]["relations"]} == {a["id"], b["id"]}


# ------------------------------------------------------------------ stats, entities, episodes


def test_stats(api: Api, user: str) -> None:
    prefers(api, user, "A", "2024-01-01")
    prefers(api, user, "B", "2025-01-01")
    q = """query($u: ID!) { stats(userId: $u) { userId episodes entities relations abstractions
      forgotten byStatus { status count } embeddingModels mixedModelsWarning } }"""
    s = api.data(q, {"u": user})["stats"]
    assert s["relations"] == 2 and s["episodes"] == 0 and s["entities"] == 3
    assert {b["status"]: b["count"] for b in s["byStatus"]} == {"ACTIVE": 1, "SUPERSEDED": 1}
    assert s["embeddingModels"] and s["mixedModelsWarning"] is None
    err = error_of(api.errors(q, {"u": "no-such-user-xyz"}))
    assert err["extensions"]["code"] == "NOT_FOUND"


def test_entities_entity_and_timeline(api: Api, user: str) -> None:
    prefers(api, user, "Vue", "2024-01-01")
    prefers(api, user, "React", "2025-01-01")
    q = """query($u: ID!, $n: String, $l: Int!, $o: Int!) {
      entities(userId: $u, name: $n, limit: $l, offset: $o) { total limit offset
        items { id name relations { object } history: relations(includeHistory: true)
        { object status } } } }"""
    page = api.data(q, {"u": user, "n": None, "l": 2, "o": 0})["entities"]
    assert page["total"] == 3 and len(page["items"]) == 2
    rest = api.data(q, {"u": user, "n": None, "l": 2, "o": 2})["entities"]
    assert len(rest["items"]) == 1
    names = {e["name"] for e in page["items"] + rest["items"]}
    assert names == {"user", "Vue", "React"}
    react = api.data(q, {"u": user, "n": "reac", "l": 10, "o": 0})["entities"]["items"]
    assert [e["name"] for e in react] == ["React"]
    usr = api.data(q, {"u": user, "n": "user", "l": 10, "o": 0})["entities"]["items"][0]
    assert [r["object"] for r in usr["relations"]] == ["React"]
    assert [(r["object"], r["status"]) for r in usr["history"]] == [
        ("Vue", "SUPERSEDED"), ("React", "ACTIVE")]
    one = api.data("query($u: ID!, $id: ID!) { entity(userId: $u, id: $id) { name } }",
                   {"u": user, "id": usr["id"]})
    assert one["entity"]["name"] == "user"
    for bad, field in (({"l": 0}, "limit"), ({"l": 101}, "limit"), ({"o": -1}, "offset")):
        err = error_of(api.errors(q, {"u": user, "n": None, "l": 5, "o": 0, **bad}))
        assert err["extensions"]["field"] == field
    err = error_of(api.errors(f'{{ entity(userId: "{user}", id: "ent_none") {{ name }} }}'))
    assert err["extensions"]["code"] == "NOT_FOUND"


def test_episodes_paging_by_session(api: Api, user: str) -> None:
    base = datetime(2025, 1, 1, tzinfo=UTC)
    for i in range(5):
        api.data(ADD_EPISODE, {"in": {
            "userId": user, "occurredAt": (base + timedelta(days=4 - i)).isoformat(),
            "content": f"note number {i}", "sessionId": "a" if i % 2 == 0 else "b"}})
    q = """query($u: ID!, $s: ID, $l: Int!, $o: Int!) { episodes(userId: $u, sessionId: $s,
      limit: $l, offset: $o) { total items { content sessionId occurredAt } } }"""
    page = api.data(q, {"u": user, "s": None, "l": 3, "o": 0})["episodes"]
    assert page["total"] == 5
    assert [e["content"] for e in page["items"]] == ["note number 4", "note number 3",
                                                     "note number 2"]  # oldest first
    a = api.data(q, {"u": user, "s": "a", "l": 10, "o": 0})["episodes"]
    assert a["total"] == 3 and {e["sessionId"] for e in a["items"]} == {"a"}
    err = error_of(api.errors(q, {"u": user, "s": None, "l": 500, "o": 0}))
    assert err["extensions"] == {"code": "BAD_USER_INPUT", "field": "limit"}


# --------------------------------------------------------------------------- transport & safety


def test_get_queries_work_and_get_mutations_do_not(api: Api, user: str) -> None:
    prefers(api, user, "X", "2025-01-01")
    resp = api.client.get("/graphql", params={
        "query": "query($u: ID!) { relations(userId: $u) { object } }",
        "variables": f'{{"u": "{user}"}}'})
    assert resp.status_code == 200 and resp.json()["data"]["relations"] == [{"object": "X"}]
    resp = api.client.get("/graphql", params={
        "query": f'mutation {{ forget(userId: "{user}", id: "rel_x") }}'})
    assert resp.status_code in (400, 405)


def test_unexpected_errors_are_masked(embedded_store: FalkorStore, user: str,
                                      caplog: pytest.LogCaptureFixture) -> None:
    service = make_service(embedded_store)

    def boom(user_id: str) -> Any:
        raise RuntimeError("MATCH (n:Relation {secret: 1}) RETURN n -- driver said no")

    service.stats = boom  # type: ignore[method-assign]
    with serve_api(service) as api:
        resp = api.post(f'{{ stats(userId: "{user}") {{ episodes }} }}')
    body = resp.text
    assert "internal error" in body and "MATCH" not in body and "Traceback" not in body
    assert resp.json()["errors"][0]["extensions"] == {"code": "INTERNAL_SERVER_ERROR"}
    assert any("MATCH" in (r.exc_text or "") or "RuntimeError" in (r.exc_text or "")
               for r in caplog.records)  # logged server-side, whole


def test_health(api: Api) -> None:
    body = api.client.get("/health").json()
    assert body["status"] == "ok" and body["store"] == "embedded"


def test_schema_route_serves_the_checked_in_sdl(api: Api) -> None:
    resp = api.client.get("/schema.graphql")
    assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/plain")
    checked_in = (Path(__file__).parent.parent / "schema.graphql").read_text(encoding="utf-8")
    assert resp.text == checked_in and "recall(" in resp.text


INJECTIONS = [
    '"}) MATCH (n) DETACH DELETE n //',
    "' OR 1=1 --",
    "`}) DETACH DELETE n WITH 1 AS x MATCH (m) RETURN m //`",
    "Robert'); DROP TABLE users;--",
    "$userId {label} \\u0000 \\\" ; CALL db.labels()",
]


@pytest.mark.parametrize("evil", INJECTIONS)
def test_injection_strings_are_stored_verbatim(api: Api, user: str, evil: str) -> None:
    other = f"{user}-bystander"
    prefers(api, other, "safety", "2025-01-01")
    rel = api.data(ADD_RELATION, {"in": {"userId": user, "subject": evil, "predicate": evil,
                                         "object": evil, "sourceRef": "ref-1"}})["addRelation"]
    assert (rel["subject"], rel["predicate"], rel["object"]) == (evil, evil, evil)
    ep = api.data(ADD_EPISODE, {"in": {"userId": user, "occurredAt": "2025-01-01",
                                       "content": evil, "sessionId": "s-1",
                                       "sourceRef": "ref-2"}})["addEpisode"]["episode"]
    assert ep["content"] == evil
    rels = api.data("query($u: ID!, $s: String) { relations(userId: $u, subject: $s) "
                    "{ subject object } }", {"u": user, "s": evil})["relations"]
    assert {(r["subject"], r["object"]) for r in rels} == {(evil, evil)}
    found = api.data(RECALL, {"in": {"userId": user, "query": evil}})["recall"]["items"]
    assert any(it["text"] == evil for it in found)
    # Nothing else was touched: the bystander's memory is intact.
    assert [r["object"] for r in api.data(RELATIONS, {"u": other})["relations"]] == ["safety"]
