"""``graphmem check``: a clean store passes; each kind of corruption, written as raw Cypher
straight into the store, is reported with the node it concerns (both stores)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphmem.check import CheckReport, check_store
from graphmem.cli import main
from graphmem.embed import HashingEmbedder
from graphmem.errors import GraphMemError
from graphmem.inputs import EpisodeIn, RelationIn
from graphmem.model import MAX_MS, MIN_MS
from graphmem.service import MemoryService
from graphmem.store.falkor import FalkorStore

from .conftest import DIM, FakeClock, make_settings


def day(n: int) -> datetime:
    return datetime(2024, 1, 1, tzinfo=UTC) + timedelta(days=n)


def raw(store: Any, user: str, text: str, **params: Any) -> list[Any]:
    """Write straight into the store, past the service (the corruption under test); the
    ``userId`` parameter names the graph on a store with one graph per user."""
    params["userId"] = user
    if store.name == "embedded":
        return list(store._query(text, params, read_only=False))
    return list(store._run(text, params, write=True))


@pytest.fixture
def corrupt(store: Any, user: str) -> Iterator[Any]:
    """``raw`` for this test; afterwards the test's users' nodes (and the ghosts it made)
    are removed, so no corruption outlives it in the session's shared store."""
    yield lambda text, **params: raw(store, user, text, **params)
    for owner in (user, f"{user}-other"):
        for label in ("Episode", "Entity", "Relation", "Access"):
            raw(store, owner, f"MATCH (n:{label}) WHERE n.userId STARTS WITH $prefix "
                              "DETACH DELETE n", prefix=user)
        raw(store, owner, "MATCH (n:Relation) WHERE n.id STARTS WITH 'rel_ghost_' "
                          "DETACH DELETE n")


def fill(service: MemoryService, user: str) -> dict[str, Any]:
    """A small memory through the service: a supersession chain with a back-fill, a
    disputed pair, a non-exclusive fact, episodes with extracted relations, a forgotten one."""
    def prefers(obj: str, start: int) -> Any:
        return service.add_relation(RelationIn(user, "user", "prefers", obj,
                                               valid_from=day(start), exclusive=True))

    vue, react, svelte = prefers("Vue", 0), prefers("React", 100), prefers("Svelte", 50)
    a = service.add_relation(RelationIn(user, "user", "lives_in", "Lisbon",
                                        valid_from=day(10), exclusive=True))
    b = service.add_relation(RelationIn(user, "user", "lives_in", "Porto",
                                        valid_from=day(10), exclusive=True))
    fact = service.add_relation(RelationIn(user, "Ana", "knows", "Bob", valid_from=day(3)))
    eps = service.add_episodes([
        EpisodeIn(user, day(200), content="I now prefer Neovim for editing."),
        EpisodeIn(user, day(201), content="I work at Acme as a data engineer."),
    ])
    service.forget(user, fact.id)
    return {"vue": vue, "react": react, "svelte": svelte, "lisbon": a, "porto": b,
            "fact": fact, "episodes": [r.episode for r in eps]}


def check(store: Any, *users: str) -> CheckReport:
    return check_store(store, list(users), now=datetime(2026, 6, 1, tzinfo=UTC))


def test_clean_store_passes(service: MemoryService, store: Any, user: str) -> None:
    made = fill(service, user)
    report = check(store, user)
    assert report.ok, [v.describe() for v in report.violations]
    assert report.nodes["Relation"] >= 6 and report.nodes["Episode"] == 2
    assert report.edges > 10
    lived = {r.id: r for r in service.relations(user, predicate="lives_in")}
    assert lived[made["lisbon"].id].disputes_ids == [made["porto"].id]  # an allowed overlap


def test_every_user_is_checked_when_none_named(service: MemoryService, store: Any,
                                               user: str) -> None:
    fill(service, user)
    report = check_store(store)
    assert user in report.users


def test_dangling_supersedes(service: MemoryService, store: Any, corrupt: Any,
                             user: str) -> None:
    made = fill(service, user)
    rid = made["react"].id
    corrupt("MATCH (r:Relation {id: $id}) CREATE (g:Relation {id: $ghost}) "
            "CREATE (r)-[:SUPERSEDES {at: 1}]->(g)", id=rid, ghost=f"rel_ghost_{user}")
    report = check(store, user)
    assert rid in report.ids("chain"), report.summary()
    assert {rid, f"rel_ghost_{user}"} <= report.ids("cross-user")  # a node nobody owns


def test_edge_between_two_users(service: MemoryService, store: Any, corrupt: Any,
                                user: str) -> None:
    other = f"{user}-other"
    made = fill(service, user)
    theirs = service.add_relation(RelationIn(other, "Zed", "owns", "Boat", valid_from=day(1)))
    episode = made["episodes"][0].id
    # In a shared graph the edge reaches the other user's entity; with a graph per user,
    # a node of theirs written into this user's graph.
    corrupt("MATCH (e:Episode {id: $ep}) MERGE (n:Entity {id: $ent}) "
            "ON CREATE SET n.userId = $other, n.name = 'Zed', n.normName = 'zed', "
            "n.createdAt = 1 CREATE (e)-[:MENTIONS {at: 1}]->(n)",
            ep=episode, ent=theirs.subject_id, other=other)
    mine = check(store, user)
    assert episode in mine.ids("cross-user"), mine.summary()
    assert any(other in v.detail for v in mine.violations)


def test_id_carried_by_two_users(service: MemoryService, store: Any, corrupt: Any,
                                 user: str) -> None:
    made = fill(service, user)
    rid = made["vue"].id
    if store.name == "neo4j":  # a unique constraint on id: the store itself refuses it
        with pytest.raises(GraphMemError):
            corrupt("CREATE (:Relation {id: $id, userId: $other})", id=rid, other="x")
        return
    corrupt("CREATE (:Relation {id: $id, userId: $other})", id=rid, other=f"{user}-copy")
    report = check(store, user)
    assert rid in report.ids("cross-user"), report.summary()


def test_two_current_relations_in_an_exclusive_slot(service: MemoryService, store: Any,
                                                    corrupt: Any, user: str) -> None:
    made = fill(service, user)
    old = made["svelte"].id  # closed when React started; re-opened here
    corrupt("MATCH (r:Relation {id: $id}) SET r.validUntil = null, r.status = 'ACTIVE'",
            id=old)
    report = check(store, user)
    flagged = [v for v in report.violations if v.rule == "exclusive-slot"]
    assert flagged and {old, made["react"].id} & {v.node_id for v in flagged}, report.summary()
    assert any("both current" in v.detail for v in flagged)
    assert not report.ids("exclusive-slot") & {made["lisbon"].id, made["porto"].id}


@pytest.mark.parametrize("value", [MIN_MS - 1, MAX_MS + 1, 1.5e12], ids=["low", "high", "float"])
def test_instant_out_of_range(service: MemoryService, store: Any, corrupt: Any, user: str,
                              value: float) -> None:
    made = fill(service, user)
    episode = made["episodes"][1].id
    corrupt("MATCH (e:Episode {id: $id}) SET e.occurredAt = $v", id=episode, v=value)
    report = check(store, user)
    assert episode in report.ids("instant"), report.summary()
    assert any("occurredAt" in v.detail for v in report.violations)


def test_relation_without_its_subject_edge(service: MemoryService, store: Any, corrupt: Any,
                                           user: str) -> None:
    made = fill(service, user)
    rid = made["vue"].id
    corrupt("MATCH (:Entity)-[s:SUBJECT_OF]->(r:Relation {id: $id}) DELETE s", id=rid)
    report = check(store, user)
    assert rid in report.ids("relation-edges"), report.summary()
    assert report.by_rule == {"relation-edges": 1}


def test_missing_property_and_broken_log(service: MemoryService, store: Any, corrupt: Any,
                                         user: str) -> None:
    made = fill(service, user)
    rid, ent = made["react"].id, made["react"].object_id
    corrupt("MATCH (r:Relation {id: $id}) SET r.untilLog = 'not json'", id=rid)
    corrupt("MATCH (n:Entity {id: $id}) SET n.name = null", id=ent)
    report = check(store, user)
    assert {rid, ent} <= report.ids("required"), report.summary()


# --------------------------------------------------------------------------- the command


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "hashing")
    monkeypatch.setenv("GRAPHMEM_EMBEDDING_DIM", str(DIM))
    for var in ("GRAPHMEM_DATA_DIR", "GRAPHMEM_STORE"):
        monkeypatch.delenv(var, raising=False)


def test_check_command(tmp_path: Path, cli_env: None,
                       capsys: pytest.CaptureFixture[str]) -> None:
    store = FalkorStore(tmp_path, dim=DIM)
    service = MemoryService(make_settings(), store, HashingEmbedder(DIM), clock=FakeClock())
    service.open()
    made = fill(service, "ann")
    fill(service, "bob")
    service.close()

    assert main(["check", "--data-dir", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] and out["users"] == 2 and out["violationCount"] == 0

    store.open()
    raw(store, "ann", "MATCH (:Entity)-[s:SUBJECT_OF]->(r:Relation {id: $id}) DELETE s",
        id=made["vue"].id)
    store.close()
    assert main(["check", "--data-dir", str(tmp_path), "--user", "bob"]) == 0
    capsys.readouterr()
    assert main(["check", "--data-dir", str(tmp_path)]) == 1
    text = capsys.readouterr().out
    assert made["vue"].id in text and "relation-edges" in text


# --------------------------------------------------------------------------- concurrency


def test_concurrent_writers_keep_the_invariants(store: Any, user: str) -> None:
    """Two services on one store (two server processes on one database), four threads
    writing to the same exclusive slot and entities at once: the store stays consistent."""
    import random
    import threading

    services = [MemoryService(make_settings(), store, HashingEmbedder(DIM)) for _ in range(2)]
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        rnd = random.Random(n)
        svc = services[n % 2]
        try:
            for i in range(12):
                svc.add_relation(RelationIn(user, "user", "prefers", f"tool-{n}-{i % 4}",
                                            valid_from=day(rnd.randrange(0, 60)),
                                            exclusive=True))
                if i % 4 == 0:
                    svc.add_episodes([EpisodeIn(user, day(i), content=f"I use Tool{n} at "
                                                                       f"Acme, note {i}.")])
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    report = check(store, user)
    assert report.ok, [v.describe() for v in report.violations[:10]]
    assert not errors, errors
