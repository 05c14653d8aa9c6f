"""Tenant isolation: a user's recall does not depend on who else is in the store.

A small tenant (20 episodes, two about pets) lives beside a big one (thousands of
episodes, all nearer to the question than the small tenant's) on both stores: the small
tenant's vector search still gives its true top-k. On the embedded store every user has
a graph of their own, so a node another user wrote (even one carrying this user's userId)
can never come back; a data directory in the old layout (one shared graph) is copied into
tenant graphs on open.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from graphmem.embed import HashingEmbedder
from graphmem.inputs import EpisodeIn, RecallIn
from graphmem.service import MemoryService
from graphmem.store import _falkor_migrate
from graphmem.store._reads import VECTOR_FETCH_MAX
from graphmem.store.base import EDGE_ENDS, NodeWrite, WritePlan
from graphmem.store.falkor import FalkorStore, tenant_graph
from graphmem.store.queries import LABELS

try:
    from conftest import DIM, FakeClock, make_settings
except ImportError:  # pragma: no cover
    from tests.conftest import DIM, FakeClock, make_settings

QUESTION = "Anything regarding pets?"
SMALL, BIG, MALLORY = "small-tenant", "big-tenant", "mallory"
BIG_EPISODES = VECTOR_FETCH_MAX + 1000  # more neighbours nearer the question than the cap
SMALL_TEXTS = [
    "Our pets Miso and Tofu had their yearly checkup at the vet.",
    "I ordered a bigger bed for the pets, Tofu keeps stealing Miso's.",
    *[f"Note {i}: {t}" for i, t in enumerate([
        "The quarterly report is due on Friday.", "Lunch with Priya at the noodle bar.",
        "Booked train tickets to Lyon for May.", "The dentist moved my appointment.",
        "Started reading a novel about lighthouse keepers.", "Replaced the kitchen tap.",
        "Paid the electricity bill.", "Ran 8 km along the canal.",
        "Sprint planning went long again.", "Mum called about the garden fence.",
        "Tried a sourdough recipe, too sour.", "The laptop battery is failing.",
        "Signed up for a pottery class.", "Car insurance renews in June.",
        "Bought winter tyres.", "Watched the chess final.", "Fixed the bike's brakes.",
        "Cleaned out the garage."])],
]


def ep(user: str, text: str, i: int) -> EpisodeIn:
    return EpisodeIn(user_id=user, occurred_at=f"2025-03-{1 + i % 28:02d}T10:{i % 60:02d}:00Z",
                     content=text, source_ref=f"m{i}")


@dataclass
class World:
    store: Any
    service: MemoryService
    embedder: HashingEmbedder
    pets: list[str]  # ids of the small tenant's two pet episodes
    small_vectors: dict[str, list[float]]  # the small tenant's episode id -> vector


def _write_big_tenant(store: Any, service: MemoryService, embedder: HashingEmbedder,
                      user: str, n: int) -> list[list[float]]:
    """``n`` episodes for ``user``, written as plans straight to the store (the service
    path would take minutes); each row is shaped like one the service wrote."""
    first = service.add_episode(ep(user, "Anything regarding pets, ticket 0", 0)).episode
    template = store.nodes("Episode", user, [first.id])[0]
    vectors = [embedder.embed_one(template["content"])]
    for start in range(1, n, 500):
        plan = WritePlan(user_id=user, at=template["createdAt"])
        for i in range(start, min(n, start + 500)):
            text = f"Anything regarding pets, ticket {i}"
            vec = embedder.embed_one(text)
            vectors.append(vec)
            plan.episodes.append(NodeWrite(f"epi_big_{i:06d}", {
                **template, "id": f"epi_big_{i:06d}", "content": text,
                "sourceRef": f"t{i}", "occurredAt": template["occurredAt"] + i}, vec))
        store.apply(plan)
    return vectors


def _build_world(store: Any) -> World:
    embedder = HashingEmbedder(DIM)
    service = MemoryService(make_settings(), store, embedder, clock=FakeClock())
    small = service.add_episodes([ep(SMALL, t, i) for i, t in enumerate(SMALL_TEXTS)])
    ids = [r.episode.id for r in small]
    big_vectors = _write_big_tenant(store, service, embedder, BIG, BIG_EPISODES)
    world = World(store, service, embedder, ids[:2],
                  {i: embedder.embed_one(t) for i, t in zip(ids, SMALL_TEXTS, strict=True)})
    # The premise: in one index shared by both, the small tenant's pet episodes rank below
    # the most nodes a shared-index search would ever ask for.
    q = embedder.embed_one(QUESTION)
    best_pet = max(_cos(q, world.small_vectors[i]) for i in world.pets)
    nearer = sum(1 for v in big_vectors if _cos(q, v) > best_pet)
    assert nearer > VECTOR_FETCH_MAX, nearer
    return world


def _cos(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


@pytest.fixture(scope="module")
def embedded_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    store = FalkorStore(Path(tmp_path_factory.mktemp("tenants")), dim=DIM)
    store.open()
    try:
        yield _build_world(store)
    finally:
        store.close()


def _bolt_store(bolt_server: Any, database: str) -> Any:
    """A neo4j store, open, on a database of its own on the session's Bolt server."""
    from graphmem.store.neo4j import Neo4jStore

    try:
        from conftest import create_database
    except ImportError:  # pragma: no cover
        from tests.conftest import create_database
    db = create_database(bolt_server, database)
    store = Neo4jStore(uri=db.uri, user=db.user, password=db.password, database=db.database,
                       dim=DIM, index_mode="arcadedb", http_url=db.http_url)
    store.open()
    return store


@pytest.fixture(scope="module")
def bolt_world(bolt_server: Any) -> Iterator[World]:
    store = _bolt_store(bolt_server, "tenants")
    try:
        yield _build_world(store)
    finally:
        store.close()


@pytest.fixture(params=["embedded", "bolt"])
def world(request: pytest.FixtureRequest) -> World:
    return request.getfixturevalue(f"{request.param}_world")  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- recall


def test_a_small_tenant_finds_its_pet_episodes_beside_a_big_one(world: World) -> None:
    hits = world.store.vector_search("Episode", SMALL, world.embedder.embed_one(QUESTION), 10)
    assert set(world.pets) <= {h.id for h in hits[:2]}


@pytest.mark.parametrize("k", [1, 5, 10, 40])
def test_a_small_tenants_vector_search_is_its_true_top_k(world: World, k: int) -> None:
    for question in (QUESTION, "When is the dentist?", "what did I fix", "train to Lyon"):
        q = world.embedder.embed_one(question)
        exact = sorted(world.small_vectors, key=lambda i: (-_cos(q, world.small_vectors[i]), i))
        got = world.store.vector_search("Episode", SMALL, q, k)
        want = min(k, len(exact))
        assert len(got) == want
        # ties may order either way: compare scores, then the set above the k-th score
        kth = _cos(q, world.small_vectors[exact[want - 1]])
        assert all(_cos(q, world.small_vectors[h.id]) >= kth - 1e-4 for h in got), question
        assert {h.id for h in got} >= {i for i in exact[:want]
                                       if _cos(q, world.small_vectors[i]) > kth + 1e-4}


def test_the_big_tenant_still_gets_its_nearest(world: World) -> None:
    hits = world.store.vector_search("Episode", BIG, world.embedder.embed_one(
        "Anything regarding pets, ticket 1234"), 10)
    assert hits and hits[0].id == "epi_big_001234"
    assert not set(world.small_vectors) & {h.id for h in hits}


def test_the_index_path_asks_past_any_fixed_cap(bolt_world: World,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Above the exact-scan limit the neo4j store asks the shared index for more (doubling)
    until it has k of the user's nodes or the index has no more: even a tenant whose nodes
    all rank below the old cap of 2,000 gets them."""
    from graphmem.store import neo4j as neo4j_store

    store = bolt_world.store
    monkeypatch.setattr(neo4j_store, "EXACT_SCAN_MAX", 5)  # the small tenant is "big" now
    monkeypatch.setattr(store, "_sizes", {})
    monkeypatch.setattr(store, "_indexed", set())
    monkeypatch.setitem(store.__dict__, "_vector_fetch_hints", {})
    hits = store.vector_search("Episode", SMALL, bolt_world.embedder.embed_one(QUESTION), 10)
    assert ("Episode", SMALL) in store._indexed
    assert store._fetch_hints[("Episode", SMALL)] > VECTOR_FETCH_MAX
    assert set(bolt_world.pets) <= {h.id for h in hits[:2]}


def test_recall_for_the_small_tenant_returns_its_pet_episodes(world: World) -> None:
    res = world.service.recall(RecallIn(user_id=SMALL, query=QUESTION, limit=5))
    found = {it.id: it for it in res.items}
    assert set(world.pets) <= set(found)
    assert all(found[i].scores.vector for i in world.pets)  # found by the vector search too
    assert all(it.id in world.small_vectors or not it.id.startswith("epi_") for it in res.items)


def test_no_query_for_one_user_returns_anothers_nodes(world: World) -> None:
    """Vector, full-text and graph reads for the small tenant, with a question that is
    nearly verbatim the big tenant's content: nothing of the big tenant's comes back."""
    store = world.store
    q = world.embedder.embed_one("Anything regarding pets, ticket 7")
    for label in LABELS:
        mine = {h.id for h in store.vector_search(label, SMALL, q, 40)}
        mine |= {h.id for h in store.fulltext_search(label, SMALL, "ticket pets regarding", 40)}
        assert not {i for i in mine if i.startswith("epi_big_")}, label
    assert store.nodes("Episode", SMALL, ["epi_big_000007"]) == []
    assert store.page_episodes(SMALL, session_id=None, with_forgotten=True, offset=0,
                               limit=100)[0] == len(SMALL_TEXTS)


# --------------------------------------------------------------------------- embedded only


def _forge(store: FalkorStore, embedder: HashingEmbedder, victim: str) -> dict[str, str]:
    """Mallory writes nodes that carry ``victim``'s userId: an episode worded as the
    question, an entity with the same id and name as one of the victim's, a relation."""
    entity = next(iter(store.entities_by_norm(victim, ["miso"])), None)
    ent_id = entity["id"] if entity else "ent_forged"
    text = QUESTION + " Miso"
    vec = embedder.embed_one(text)
    plan = WritePlan(user_id=MALLORY, at=1_700_000_000_000)
    base = {"userId": victim, "createdAt": plan.at, "schemaVersion": 1}
    plan.episodes.append(NodeWrite("epi_forged", {**base, "id": "epi_forged", "content": text,
                                                  "occurredAt": plan.at,
                                                  "recordedAt": plan.at}, vec))
    plan.entities.append(NodeWrite(ent_id, {**base, "id": ent_id, "name": "Miso",
                                            "normName": "miso"}, vec))
    plan.relations.append(NodeWrite("rel_forged", {
        **base, "id": "rel_forged", "statement": "Miso is a forged fact", "subject": "Miso",
        "predicate": "is", "object": "forged", "subjectId": ent_id, "objectId": ent_id,
        "groupKey": "forged", "validFrom": plan.at, "recordedAt": plan.at}, vec))
    store.apply(plan)
    return {"episode": "epi_forged", "entity": ent_id, "relation": "rel_forged"}


def test_a_forged_userid_never_crosses_the_graph_boundary(embedded_world: World) -> None:
    store, emb = embedded_world.store, embedded_world.embedder
    forged = _forge(store, emb, SMALL)
    q = emb.embed_one(QUESTION + " Miso")
    seen: set[str] = set()
    for label in LABELS:
        seen |= {h.id for h in store.vector_search(label, SMALL, q, 40)}
        seen |= {h.id for h in store.fulltext_search(label, SMALL, "pets Miso forged", 40)}
    ent = store.entities_by_norm(SMALL, ["miso"])
    seen |= {h.id for h in store.expand(SMALL, [e["id"] for e in ent], 40)}
    seen |= {h.id for h in store.episode_mentions(SMALL, [e["id"] for e in ent], 40)}
    seen |= {r["id"] for r in store.nodes("Episode", SMALL, ["epi_forged"])}
    seen |= {r["id"] for r in store.nodes("Relation", SMALL, ["rel_forged"])}
    assert "epi_forged" not in seen and "rel_forged" not in seen
    assert all(e.get("name") != "Miso" or e["createdAt"] != 1_700_000_000_000 for e in ent)
    # Mallory's own reads do not return them either: they carry another userId.
    assert store.nodes("Episode", MALLORY, [forged["episode"]]) == []
    # The graphs are apart: the small tenant's graph holds nothing Mallory wrote.
    rows = store._run(store._handle(tenant_graph("graphmem", SMALL)),
                      "MATCH (n) WHERE n.id IN $ids RETURN n.id", {"ids": list(forged.values())})
    assert [r for r in rows if r[0] != forged["entity"]] == []


def test_each_user_has_a_graph_and_reads_make_none(embedded_world: World) -> None:
    store = embedded_world.store
    before = store._graph_names()
    assert {tenant_graph("graphmem", u) for u in (SMALL, BIG)} <= set(before)
    assert "graphmem" not in before  # no shared graph
    assert store.vector_search("Episode", "nobody", embedded_world.embedder.embed_one("x"), 5) == []
    assert store.count("Episode", "nobody") == (0, 0)
    assert store.page_episodes("nobody", session_id=None, with_forgotten=False, offset=0,
                               limit=5) == (0, [])
    assert store._graph_names() == before
    assert {SMALL, BIG} <= set(store.user_ids())


def test_a_read_during_a_users_first_write_waits_for_the_graph(
        embedded_world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """The graph exists on the server from its first index on; a read arriving while the
    first write is still making the rest must wait for it, not query a half-made graph."""
    import threading

    store = embedded_world.store
    made_one, go_on = threading.Event(), threading.Event()
    make_all = store._create_indexes

    def make_slowly(graph: Any) -> None:
        graph.query(store._q.statements("schema", dim=DIM)[0])  # the graph exists now
        made_one.set()
        go_on.wait(10)
        make_all(graph)

    monkeypatch.setattr(store, "_create_indexes", make_slowly)
    writer = threading.Thread(target=store._tenant_for_write, args=("racer",))
    writer.start()
    assert made_one.wait(10)
    result: dict[str, Any] = {}

    def read() -> None:
        try:
            result["hits"] = store.vector_search("Relation", "racer", [0.1] * DIM, 5)
        except Exception as e:  # noqa: BLE001 - the assertion shows it
            result["error"] = e

    reader = threading.Thread(target=read)
    reader.start()
    reader.join(0.5)
    go_on.set()
    writer.join(10)
    reader.join(10)
    assert result == {"hits": []}


def test_a_query_without_a_user_cannot_run(embedded_world: World) -> None:
    from graphmem.errors import GraphMemError

    with pytest.raises(GraphMemError, match="userId"):
        embedded_world.store._query("MATCH (n) RETURN count(n)", {})


def test_graph_names_are_fixed_length_hashes() -> None:
    names = {tenant_graph("graphmem", u) for u in ("a", "A", "a ", "\u00e9", "x" * 10_000,
                                                    "\ud800", "graphmem")}
    assert len(names) == 7
    assert all(len(n) == len("graphmem:u_") + 32 and n.startswith("graphmem:u_") for n in names)


# --------------------------------------------------------------------------- migration


class _SharedGraphStore(FalkorStore):
    """The layout before tenant graphs: every user's nodes in one graph, ``graphmem``."""

    def _tenant_for_read(self, user_id: str) -> Any:
        if self._graph_name not in self._graph_names():
            return None
        return self._handle(self._graph_name)

    def _tenant_for_write(self, user_id: str) -> str:
        if self._graph_name not in self._ready:
            self._create_indexes(self._handle(self._graph_name))
            self._ready.add(self._graph_name)
        return self._graph_name

    def _migrate(self) -> None:  # it writes that layout
        pass


def _old_layout(data_dir: Path, users: list[str]) -> dict[str, Any]:
    """A data dir written in the old layout, and each user's export of it."""
    store = _SharedGraphStore(data_dir, dim=DIM)
    store.open()
    try:
        svc = MemoryService(make_settings(), store, HashingEmbedder(DIM), clock=FakeClock())
        for n, user in enumerate(users):
            svc.add_episodes([ep(user, t, i) for i, t in enumerate(SMALL_TEXTS[: 6 + n])])
            svc.add_episode(ep(user, "I work at Acme. I prefer tea. My sister Lena lives in "
                                     "Berlin.", 40))
            svc.add_episode(ep(user, f"I prefer coffee now. I met {user.title()} Smith at "
                                     "Acme.", 41))
            ids = [h.id for h in store.vector_search("Episode", user, [1.0] * DIM, 3)]
            store.bump_access("Episode", user, [{"id": i, "delta": 2, "at": 5} for i in ids])
        assert store._graph_names() == ["graphmem"]
        return {u: _export(store, u) for u in users}
    finally:
        store.close()


def _export(store: FalkorStore, user: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for label in LABELS:
        out[label] = store.export_nodes(label, user, 0, 10_000)
    for edge in EDGE_ENDS:
        out[edge] = store.export_edges(edge, user)
    out["vector"] = [h.id for h in store.vector_search("Episode", user,
                                                       HashingEmbedder(DIM).embed_one(QUESTION), 5)]
    return out


def test_a_data_dir_in_the_old_layout_is_migrated_on_open(tmp_path: Path,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    users = ["ann", "bob", "cy"]
    want = _old_layout(tmp_path, users)
    assert sum(len(want["ann"][lb]) for lb in LABELS) > 6
    store = FalkorStore(tmp_path, dim=DIM)
    with caplog.at_level("INFO", logger="graphmem.store._falkor_migrate"):
        store.open()
    try:
        assert "user 3/3 copied" in caplog.text
        assert sorted(store._graph_names()) == sorted(tenant_graph("graphmem", u) for u in users)
        assert store.user_ids() == users
        for user in users:
            assert _export(store, user) == want[user], user
        # and it goes on working: a write lands in the user's graph
        svc = MemoryService(make_settings(), store, HashingEmbedder(DIM), clock=FakeClock())
        svc.add_episode(ep("ann", "Ann adopted a parrot.", 50))
        assert store.count("Episode", "ann")[0] == len(want["ann"]["Episode"]) + 1
    finally:
        store.close()


def test_an_interrupted_migration_keeps_the_old_graph_and_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    users = ["ann", "bob", "cy"]
    want = _old_layout(tmp_path, users)
    real = _falkor_migrate._copy_edges
    calls = {"n": 0}

    def dies_in_the_second_user(*args: Any, **kwargs: Any) -> None:
        if args[2] == "bob":
            calls["n"] += 1
            if calls["n"] == 2:  # bob's nodes and some edges are in bob's graph by now
                raise RuntimeError("killed")
        real(*args, **kwargs)

    monkeypatch.setattr(_falkor_migrate, "_copy_edges", dies_in_the_second_user)
    store = FalkorStore(tmp_path, dim=DIM)
    with pytest.raises(RuntimeError, match="killed"):
        store.open()
    monkeypatch.setattr(_falkor_migrate, "_copy_edges", real)
    probe = _SharedGraphStore(tmp_path, dim=DIM)  # opens without migrating
    probe.open()
    try:
        names = probe._graph_names()
        assert "graphmem" in names  # the shared graph is kept until every user is copied
        assert tenant_graph("graphmem", "ann") in names  # ann was done
        bob = probe._handle(tenant_graph("graphmem", "bob"))
        assert _falkor_migrate.target_state(bob, probe._q) is None  # bob's copy: unfinished
        assert probe._run(bob, "MATCH (n:Episode) RETURN count(n) AS c", {})[0][0] > 0
    finally:
        probe.close()
    store = FalkorStore(tmp_path, dim=DIM)  # the lock was released, the server stopped
    store.open()
    try:
        assert "graphmem" not in store._graph_names()
        for user in users:
            assert _export(store, user) == want[user], user
    finally:
        store.close()


def test_a_shared_graph_with_unknown_labels_is_refused_and_kept(tmp_path: Path) -> None:
    _old_layout(tmp_path, ["ann"])
    store = _SharedGraphStore(tmp_path, dim=DIM)
    store.open()
    store._run(store._handle("graphmem"), "CREATE (:Weird {userId: $u})", {"u": "ann"}, False)
    store.close()
    with pytest.raises(_falkor_migrate.MigrationError, match="Weird"):
        FalkorStore(tmp_path, dim=DIM).open()
    store = _SharedGraphStore(tmp_path, dim=DIM)
    store.open()
    try:
        assert "graphmem" in store._graph_names()
    finally:
        store.close()


def test_neo4j_exact_search_leaves_out_vectors_of_another_length(bolt_server: Any) -> None:
    """Mid-reembed (an embedder of another length configured, `graphmem reembed` not through)
    the exact scan compares only vectors of the question's length: a question of the new
    length finds none of the old vectors, and the search does not fail. (ArcadeDB's vector
    index refuses to store a second length, so the store holds one and the question the
    other.)"""
    store = _bolt_store(bolt_server, "mixedlen")
    try:
        embedder = HashingEmbedder(DIM)
        service = MemoryService(make_settings(), store, embedder, clock=FakeClock())
        ids = [service.add_episode(EpisodeIn(
            user_id="mixed", occurred_at="2025-01-01T00:00:00Z", content=text,
            source_ref=f"m{i}")).episode.id
            for i, text in enumerate(["my cat Miso sleeps all day", "the train to Lyon"])]
        assert store.vector_search("Episode", "mixed", [0.5] * (DIM * 2), 10) == []
        hits = store.vector_search("Episode", "mixed", embedder.embed_one("cat Miso"), 10)
        assert [h.id for h in hits][:1] == [ids[0]] and len(hits) == 2
    finally:
        store.close()
