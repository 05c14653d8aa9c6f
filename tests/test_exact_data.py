"""Exact data: what a client sends is what is stored and answered, nothing else.

Through the real GraphQL app, on both stores where the store is involved:

* entity resolution links names but never rewrites them (near names that differ in a
  number, version, code or date stay different entities; a link is explained);
* write responses answer every statement with its own relation;
* reads return every current fact, filtered and ordered in the query, paged by cursor;
* ``graphmem import`` writes only into the user it names, all or nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from graphmem.service import MemoryService

from .api_support import Api, make_service, serve_api
from .conftest import FakeClock, make_settings

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
