"""Exact data: what a client sends is what is stored and answered, nothing else.

Through the real GraphQL app, on both stores where the store is involved:

* entity resolution links names but never rewrites them (near names that differ in a
  number, version, code or date stay different entities; a link is explained);
* write responses answer every statement with its own relation;
* reads return every current fact, filtered and ordered in the query, paged by cursor;
* ``graphmem import`` writes only into the user it names, all or nothing.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphmem.bootstrap import build_service
from graphmem.cli import main
from graphmem.errors import NotFoundError
from graphmem.inputs import RelationIn
from graphmem.model import to_ms
from graphmem.relations import visible_at
from graphmem.service import MemoryService
from graphmem.settings import Settings
from graphmem.transfer import export_user

from .api_support import Api, make_service, serve_api
from .conftest import DIM, FakeClock, make_settings

REL = "id subject predicate object statement validFrom objectEntity { id name aliases }"


@pytest.fixture
def api(store: Any, clock: FakeClock) -> Iterator[Api]:
    with serve_api(make_service(store, clock)) as client:
        yield client


def add_relation(api: Api, user: str, subject: str, predicate: str, obj: str,
                 valid_from: str = "2025-01-01T00:00:00Z", **extra: Any) -> dict[str, Any]:
    data = api.data(f"mutation($i: RelationInput!) {{ addRelation(input: $i) {{ {REL} }} }}",
                    {"i": {"userId": user, "subject": subject, "predicate": predicate,
                           "object": obj, "validFrom": valid_from, **extra}})
    return data["addRelation"]


# --------------------------------------------------------------------------- finding 8


def test_add_episode_answers_every_statement_with_its_relation(api: Api, user: str) -> None:
    # Two statements about the same object at the same time, in different groups.
    data = api.data("""mutation($i: EpisodeInput!) { addEpisode(input: $i) {
        relations { id subject predicate object statement } } }""",
                    {"i": {"userId": user, "occurredAt": "2025-03-01T10:00:00Z",
                           "content": "I prefer React and I use React."}})
    rels = data["addEpisode"]["relations"]
    assert sorted(r["predicate"] for r in rels) == ["prefers", "uses"]
    assert len({r["id"] for r in rels}) == 2
    stored = api.data("query($u: ID!) { relations(userId: $u) { id predicate } }",
                      {"u": user})["relations"]
    assert {r["id"] for r in stored} == {r["id"] for r in rels}


def test_add_episode_answers_with_what_each_relation_supersedes(api: Api, user: str) -> None:
    """The write's answer shows the version chain it made, as a later read would."""
    mutation = """mutation($i: EpisodeInput!) { addEpisode(input: $i) {
        relations { id predicate object supersedes { id object } } } }"""
    first = api.data(mutation, {"i": {"userId": user, "speaker": "Ana",
                                      "occurredAt": "2023-05-02T10:00:00Z",
                                      "content": "I prefer Vue for front-end work."}})
    old = next(r for r in first["addEpisode"]["relations"] if r["predicate"] == "prefers")
    second = api.data(mutation, {"i": {"userId": user, "speaker": "Ana",
                                       "occurredAt": "2024-03-01T09:00:00Z",
                                       "content": "I switched from Vue to React."}})
    new = next(r for r in second["addEpisode"]["relations"] if r["predicate"] == "prefers")
    assert new["object"] == "React"
    assert new["supersedes"] == [{"id": old["id"], "object": "Vue"}]
    stored = api.data("query($u: ID!) { relations(userId: $u, predicate: \"prefers\") { id "
                      "supersedes { id } } }", {"u": user})["relations"]
    assert stored == [{"id": new["id"], "supersedes": [{"id": old["id"]}]}]


def test_add_relations_answers_each_input_with_its_own_relation(api: Api, user: str) -> None:
    inputs = [{"userId": user, "subject": "Carl", "predicate": p, "object": "React",
               "validFrom": "2025-01-01T00:00:00Z"} for p in ("prefers", "uses")]
    rels = api.data("mutation($i: [RelationInput!]!) { addRelations(inputs: $i) { "
                    "id predicate statement } }", {"i": inputs})["addRelations"]
    assert [r["predicate"] for r in rels] == ["prefers", "uses"]
    assert [r["statement"] for r in rels] == ["Carl prefers React", "Carl uses React"]
    assert rels[0]["id"] != rels[1]["id"]


# --------------------------------------------------------------------------- finding 6

NEAR_NAMES = [("iPhone 14", "iPhone 15"), ("Python 3.12", "Python 3.11"),
              ("Room 102", "Room 101"), ("Flat 12C", "Flat 12B"), ("2024", "2023")]


@pytest.fixture
def loose_api(store: Any, clock: FakeClock) -> Iterator[Api]:
    """An app whose entity resolution links anything the hashing embedder finds at all
    similar: the near names of the findings score 0.5-0.66 with it, 0.87-0.91 with MiniLM."""
    with serve_api(make_service(store, clock, entity_similarity=0.1)) as client:
        yield client


@pytest.mark.parametrize("first, second", NEAR_NAMES)
def test_near_names_that_differ_in_a_number_stay_different(loose_api: Api, user: str,
                                                           first: str, second: str) -> None:
    a = add_relation(loose_api, user, "Ann", "uses", first)
    b = add_relation(loose_api, user, "Bob", "uses", second)
    assert (b["object"], b["statement"]) == (second, f"Bob uses {second}")
    assert b["objectEntity"]["name"] == second
    assert b["objectEntity"]["id"] != a["objectEntity"]["id"]
    assert second not in a["objectEntity"]["aliases"]
    stored = loose_api.data("query($u: ID!) { relations(userId: $u) { subject statement } }",
                            {"u": user})["relations"]
    assert sorted(r["statement"] for r in stored) == sorted(
        [f"Ann uses {first}", f"Bob uses {second}"])


def test_a_linked_alias_keeps_the_text_sent_and_explains_the_link(
        store: Any, clock: FakeClock, user: str) -> None:
    # "TypeScript" / "Typescript lang" score 0.78 with the hashing embedder; person names
    # far less, so only the object is linked at this threshold.
    with serve_api(make_service(store, clock, entity_similarity=0.7)) as loose_api:
        _check_alias_link(loose_api, user)


def _check_alias_link(loose_api: Api, user: str) -> None:
    first = add_relation(loose_api, user, "Ann", "uses", "TypeScript")
    linked = add_relation(loose_api, user, "Bob", "uses", "Typescript lang",
                          statement="Bob writes Typescript lang daily")
    assert linked["object"] == "Typescript lang"
    assert linked["statement"] == "Bob writes Typescript lang daily"
    entity = linked["objectEntity"]
    assert entity["id"] == first["objectEntity"]["id"]
    assert entity["name"] == "TypeScript" and "Typescript lang" in entity["aliases"]
    found = loose_api.data("""query($u: ID!, $id: ID!) { entity(userId: $u, id: $id) {
        resolutions { name matched score method } } }""",
                           {"u": user, "id": entity["id"]})["entity"]["resolutions"]
    assert len(found) == 1
    res = found[0]
    assert (res["name"], res["matched"], res["method"]) == (
        "Typescript lang", "TypeScript", "embedding")
    assert 0.7 <= res["score"] <= 1.0
    assert linked["subject"] == "Bob"


def test_a_name_matched_by_its_normal_form_keeps_the_text_sent(api: Api, user: str) -> None:
    first = add_relation(api, user, "Ann", "uses", "PostgreSQL")
    again = add_relation(api, user, "ann", "likes", "postgresql!")
    assert (again["subject"], again["object"]) == ("ann", "postgresql!")
    assert again["statement"] == "ann likes postgresql!"
    assert again["objectEntity"]["id"] == first["objectEntity"]["id"]


@pytest.fixture(scope="module")
def minilm_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryService]:
    """The default embedder (MiniLM, where near names score 0.87-0.91) on its own store."""
    from graphmem.embed import build_embedder
    from graphmem.store.falkor import FalkorStore

    store = FalkorStore(tmp_path_factory.mktemp("minilm"), dim=384)
    store.open()
    try:
        yield MemoryService(make_settings(embedder="minilm", embedding_dim=384), store,
                            build_embedder("minilm"), clock=FakeClock())
    finally:
        store.close()


def test_minilm_links_aliases_but_never_rewrites_near_names(minilm_service: MemoryService,
                                                            user: str) -> None:
    with serve_api(minilm_service) as api:
        for first, second in NEAR_NAMES:
            a = add_relation(api, user, "Ann", "uses", first)
            b = add_relation(api, user, "Bob", "uses", second)
            assert (b["object"], b["statement"]) == (second, f"Bob uses {second}")
            assert b["objectEntity"]["id"] != a["objectEntity"]["id"], (first, second)
        # a real alias still links (0.90 with MiniLM), keeping the text that was sent
        pg = add_relation(api, user, "Ann", "runs", "PostgreSQL")
        alias = add_relation(api, user, "Bob", "runs", "Postgres")
        assert (alias["object"], alias["statement"]) == ("Postgres", "Bob runs Postgres")
        assert alias["objectEntity"]["id"] == pg["objectEntity"]["id"]
        assert "Postgres" in alias["objectEntity"]["aliases"]


# --------------------------------------------------------------------------- finding 11


@pytest.fixture
def cli_target(request: pytest.FixtureRequest, store: Any, tmp_path: Path,
               monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Where ``graphmem import`` writes: a real data directory, or the Bolt server's
    database (the same one the ``store`` fixture uses), configured as the CLI reads it."""
    env = {"GRAPHMEM_EMBEDDER": "hashing", "GRAPHMEM_EMBEDDING_DIM": str(DIM)}
    if store.name == "embedded":
        env.update(GRAPHMEM_STORE="embedded", GRAPHMEM_DATA_DIR=str(tmp_path / "data"))
    else:
        db = request.getfixturevalue("bolt_server")
        env.update(GRAPHMEM_STORE="neo4j", GRAPHMEM_NEO4J_URI=db.uri,
                   GRAPHMEM_NEO4J_USER=db.user, GRAPHMEM_NEO4J_PASSWORD=db.password,
                   GRAPHMEM_NEO4J_DATABASE="store", GRAPHMEM_NEO4J_INDEX_MODE="arcadedb",
                   GRAPHMEM_NEO4J_HTTP_URL=db.http_url)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("GRAPHMEM_API_KEYS", raising=False)
    return Settings()


def _with_service(settings: Settings) -> Any:
    service = build_service(settings)
    service.open()
    return service


def _import(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[int, str]:
    code = main(["import", str(path)])
    return code, capsys.readouterr().err


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_import_never_touches_another_users_nodes(cli_target: Settings, user: str,
                                                  tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    victim, thief = f"{user}-alice", f"{user}-mallory"
    service = _with_service(cli_target)
    try:
        rel = service.add_relation(RelationIn(victim, "Alice", "lives_in", "Paris"))
        before = service.store.nodes("Relation", victim, [rel.id])[0]
    finally:
        service.close()
    # A crafted export: the victim's relation and entity ids, owned by the importer.
    stolen = {**before, "userId": thief, "statement": "Alice lives in Mordor",
              "object": "Mordor"}
    crafted = _write(tmp_path / "crafted.jsonl", [
        {"type": "header", "format": "graphmem-export", "version": 1, "userId": thief},
        {"type": "node", "label": "Entity", "props": {
            "id": f"ent_{'0' * 24}", "userId": thief, "name": "x", "normName": "x",
            "createdAt": 1}},
        {"type": "node", "label": "Relation", "props": stolen}])
    code, err = _import(capsys, crafted)
    if cli_target.store == "neo4j" or code != 0:
        # One database for every user: an id of another user's node is refused, before
        # anything of the file is written.
        assert code == 2, err
        assert "line 3" in err and "another user" in err
    # else: the embedded store keeps each user in a graph of their own, so the file's
    # nodes went into the importer's graph and cannot reach the victim's
    service = _with_service(cli_target)
    try:
        after = service.store.nodes("Relation", victim, [rel.id])
        assert after and after[0] == before  # not moved, not overwritten
        thief_sees = service.store.nodes("Relation", thief, [rel.id])
        if code != 0:  # refused: nothing of the file was written
            assert thief_sees == []
            assert service.store.nodes("Entity", thief, [f"ent_{'0' * 24}"]) == []
        else:  # a copy in the importer's own graph, holding only what the file said
            assert [r["statement"] for r in thief_sees] == ["Alice lives in Mordor"]
    finally:
        service.close()


BAD_RECORDS = [
    ({"type": "node", "label": "Episode", "props": {"id": "epi_x", "userId": "{u}",
                                                    "content": {"nested": "map"},
                                                    "occurredAt": 1, "recordedAt": 1,
                                                    "createdAt": 1}}, "content"),
    ({"type": "node", "label": "Relation", "props": {"id": "rel_x", "userId": "{u}"}},
     "needs"),
    ({"type": "node", "label": "Episode", "props": {
        "id": "epi_y", "userId": "{u}", "content": "a", "occurredAt": 253402300800000,
        "recordedAt": 1, "createdAt": 1}}, "occurredAt"),
    ({"type": "edge", "edge": "MENTIONS", "src": "epi_nowhere", "dst": "ent_nowhere",
      "props": {}}, "MENTIONS"),
    ({"type": "node", "label": "Episode", "props": {
        "id": "epi_z", "userId": "{u}", "content": "nul \u0000 here", "occurredAt": 1,
        "recordedAt": 1, "createdAt": 1}}, "NUL"),
]


@pytest.mark.parametrize("bad, says", BAD_RECORDS)
def test_import_is_all_or_nothing_and_names_the_bad_line(
        cli_target: Settings, embedded_store: Any, user: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], bad: dict[str, Any], says: str) -> None:
    source = make_service(embedded_store, FakeClock())
    source.add_relation(RelationIn(user, "Ann", "works_at", "Acme"))
    source.add_relation(RelationIn(user, "Ann", "lives_in", "Oslo"))
    out = io.StringIO()
    export_user(source, user, out)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    bad = json.loads(json.dumps(bad).replace("{u}", user))
    assert records[-1]["type"] == "edge"  # a good record after the bad one
    path = _write(tmp_path / "bad.jsonl", records + [bad] + records[-1:])
    code, err = _import(capsys, path)
    assert code == 2, err
    assert f"line {len(records) + 1}" in err and says in err
    service = _with_service(cli_target)
    try:
        with pytest.raises(NotFoundError):
            service.stats(user)  # nothing of the file was written
    finally:
        service.close()
    code, err = _import(capsys, _write(tmp_path / "good.jsonl", records))
    assert code == 0, err
    service = _with_service(cli_target)
    try:
        assert service.stats(user).relations == 2
    finally:
        service.close()


# --------------------------------------------------------------------------- finding 9


def _day(n: int) -> str:
    return (datetime(2024, 1, 1, tzinfo=UTC) + timedelta(days=n)).isoformat()


def _add_many(api: Api, user: str, items: list[tuple[str, str, str, int]]) -> None:
    for i in range(0, len(items), 50):
        api.data("mutation($i: [RelationInput!]!) { addRelations(inputs: $i) { id } }",
                 {"i": [{"userId": user, "subject": s, "predicate": p, "object": o,
                         "validFrom": _day(d)} for s, p, o, d in items[i:i + 50]]})


def test_relations_keep_current_facts_behind_a_long_history(api: Api, user: str) -> None:
    # 60 successive preferences: 59 superseded, one current (the newest)
    _add_many(api, user, [("user", "prefers", f"Tool {i}", i) for i in range(60)])
    got = api.data("query($u: ID!) { relations(userId: $u, limit: 5) { object } }",
                   {"u": user})["relations"]
    assert [r["object"] for r in got] == ["Tool 59"]


def test_relations_are_newest_first_and_page_by_cursor(api: Api, user: str) -> None:
    _add_many(api, user, [("Ann", "likes", f"thing {i}", i) for i in range(23)])
    first = api.data("query($u: ID!) { relations(userId: $u, limit: 4) { object } }",
                     {"u": user})["relations"]
    assert [r["object"] for r in first] == [f"thing {i}" for i in (22, 21, 20, 19)]
    seen: list[str] = []
    after = None
    page_query = """query($u: ID!, $a: String) { relationPage(userId: $u, first: 5, after: $a) {
        items { object } nextCursor } }"""
    for n in range(10):
        page = api.data(page_query, {"u": user, "a": after})["relationPage"]
        seen += [r["object"] for r in page["items"]]
        if n == 0:  # a fact added while paging is not in this snapshot
            _add_many(api, user, [("Ann", "likes", "late", 100)])
        after = page["nextCursor"]
        if after is None:
            break
    assert seen == [f"thing {i}" for i in range(22, -1, -1)]
    errors = api.errors(page_query, {"u": user, "a": "bm90IGEgY3Vyc29y"})
    assert errors[0]["extensions"]["field"] == "after"


def test_entity_relations_of_a_hub_are_the_newest_and_page(api: Api, user: str) -> None:
    _add_many(api, user, [("Hub", "knows", f"person {i}", i) for i in range(120)])
    ent = api.data("query($u: ID!) { entities(userId: $u, name: \"Hub\") { items { id } } }",
                   {"u": user})["entities"]["items"][0]["id"]
    q = """query($u: ID!, $e: ID!, $a: String) { entity(userId: $u, id: $e) {
        relations(limit: 3) { object }
        relationPage(first: 50, after: $a) { items { object } nextCursor } } }"""
    got = api.data(q, {"u": user, "e": ent, "a": None})["entity"]
    assert [r["object"] for r in got["relations"]] == ["person 119", "person 118", "person 117"]
    seen = [r["object"] for r in got["relationPage"]["items"]]
    after = got["relationPage"]["nextCursor"]
    while after is not None:
        page = api.data(q, {"u": user, "e": ent, "a": after})["entity"]["relationPage"]
        seen += [r["object"] for r in page["items"]]
        after = page["nextCursor"]
    assert seen == [f"person {i}" for i in range(119, -1, -1)]


def test_the_query_and_the_python_rule_agree(service: MemoryService, user: str,
                                             clock: FakeClock) -> None:
    """One visibility rule: the listing query (Cypher) and ``visible_at`` (Python) give the
    same answer at every (asOf, knownAt) of a history with every kind of change."""
    def rel(obj: str, start: int, **kw: Any) -> RelationIn:
        return RelationIn(user, "user", "prefers", obj, exclusive=True,
                          valid_from=datetime(2024, 1, 1, tzinfo=UTC) + timedelta(days=start),
                          **kw)

    marks = [clock.now]
    for step in (rel("Vue", 0), rel("React", 100), rel("Svelte", 50), rel("Solid", 50),
                 rel("Qwik", 200, valid_until=datetime(2024, 9, 1, tzinfo=UTC))):
        clock.tick(60)
        service.add_relation(step)
        marks.append(clock.now)
    clock.tick(60)
    react = [r for r in service.relations(user, include_history=True) if r.object == "React"]
    service.forget(user, react[0].id)
    marks.append(clock.tick(60))
    rows = service.store.export_nodes("Relation", user, 0, 100)
    for k in [*marks, marks[0] - timedelta(seconds=1)]:
        for d in range(-10, 400, 15):
            t = datetime(2024, 1, 1, tzinfo=UTC) + timedelta(days=d)
            queried = {r.id for r in service.relations(user, as_of=t, known_at=k)}
            python = {r["id"] for r in rows if visible_at(r, to_ms(t) or 0, to_ms(k) or 0)}
            assert queried == python, (d, k)
