"""graphmem import-graphiti on a graph written by graphiti-core itself.

The graph is written into an embedded FalkorDB (falkordblite) with graphiti's own models
and save methods (``EpisodicNode.save``, ``EntityNode.save``, ``EntityEdge.save``,
``EpisodicEdge.save``) through its ``FalkorDriver``; the fact graphiti invalidates is
invalidated by graphiti's own rule (``resolve_edge_contradictions``), as its ingestion
pipeline does once its LLM has judged the contradiction. No LLM is driven: every field an
LLM would fill is given.

Checked: for every graphiti edge and several instants around its validity, graphmem's
``relations(asOf=t)`` holds the fact exactly when graphiti's ``valid_at <= t <
invalid_at`` does; system time follows graphiti's (before graphiti expired the old fact,
``knownAt`` still sees it open); a re-run changes nothing; a refused group writes nothing
while the others are imported; a dry run writes nothing; the command line works.
"""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

pytest.importorskip("graphiti_core", reason="graphiti-core is not installed (pip install "
                                            "-e '.[dev]' brings it)")

from graphmem._graphiti_import import GroupReport, import_graphiti  # noqa: E402
from graphmem.check import check_store  # noqa: E402
from graphmem.embed import HashingEmbedder  # noqa: E402
from graphmem.inputs import RelationIn  # noqa: E402
from graphmem.model import MemoryStatus  # noqa: E402
from graphmem.service import MemoryService  # noqa: E402
from graphmem.store._graphiti import GraphitiSource  # noqa: E402
from graphmem.store.falkor import FalkorStore  # noqa: E402
from graphmem.transfer import export_user  # noqa: E402

from .conftest import DIM, make_settings  # noqa: E402

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")


def _t(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@dataclass(frozen=True)
class Fact:
    """What graphiti holds for one edge, read back after it was written."""

    subject: str
    predicate: str
    object: str
    valid_at: datetime | None
    invalid_at: datetime | None
    created_at: datetime
    expired_at: datetime | None

    def start(self) -> datetime:
        return self.valid_at or self.created_at  # the importer's rule for an unknown start

    def valid(self, t: datetime) -> bool:
        """graphiti's own validity of the edge at valid time ``t``."""
        return self.start() <= t and (self.invalid_at is None or t < self.invalid_at)


async def _write_graph(path: Path) -> None:
    """Group 'life' (Alice: moves, likes, knows) and group 'work' (Bob lives in London)."""
    from graphiti_core.driver.falkordb_driver import FalkorDriver
    from graphiti_core.edges import EntityEdge, EpisodicEdge
    from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode
    from graphiti_core.utils.maintenance.edge_operations import resolve_edge_contradictions
    from redislite.async_falkordb_client import AsyncFalkorDB

    db = AsyncFalkorDB(str(path))
    vec = HashingEmbedder(16).embed_one
    try:
        life = FalkorDriver(falkor_db=db, database="life")
        await life.build_indices_and_constraints()
        eps = [EpisodicNode(name=f"msg-{i}", group_id="life", source=EpisodeType.message,
                            source_description="chat", content=text, valid_at=_t(when),
                            created_at=_t(when) + timedelta(minutes=1))
               for i, (when, text) in enumerate([
                   ("2023-01-10T09:00:00", "Alice: I live in Berlin now."),
                   ("2024-03-01T09:00:00", "Alice: I moved to Paris last week."),
                   ("2024-05-01T09:00:00", "Alice: I like tea, and coffee until August."),
                   ("2024-06-01T09:00:00", "Alice: Bob is a friend of mine.")], start=1)]
        for ep in eps:
            await ep.save(life)
        names = {"Alice": ["Person"], "Berlin": ["Location"], "Paris": ["Location"],
                 "Tea": [], "Coffee": [], "Bob": ["Person"]}
        ent = {n: EntityNode(name=n, group_id="life", labels=labels, summary=f"{n}.",
                             created_at=_t("2023-01-10T09:01:00"), name_embedding=vec(n))
               for n, labels in names.items()}
        for node in ent.values():
            await node.save(life)

        def edge(src: str, name: str, dst: str, fact: str, ep: int, **times: datetime | None
                 ) -> EntityEdge:
            return EntityEdge(group_id="life", source_node_uuid=ent[src].uuid,
                              target_node_uuid=ent[dst].uuid, name=name, fact=fact,
                              fact_embedding=vec(fact), episodes=[eps[ep - 1].uuid],
                              **times)  # type: ignore[arg-type]

        berlin = edge("Alice", "LIVES_IN", "Berlin", "Alice lives in Berlin", 1,
                      valid_at=_t("2023-01-10T09:00:00"), created_at=_t("2023-01-10T09:01:00"))
        paris = edge("Alice", "LIVES_IN", "Paris", "Alice lives in Paris", 2,
                     valid_at=_t("2024-02-23T00:00:00"), created_at=_t("2024-03-01T09:01:00"))
        # graphiti's own invalidation: Berlin ends where Paris starts, expired "now"
        assert resolve_edge_contradictions(paris, [berlin]) == [berlin]
        tea = edge("Alice", "LIKES", "Tea", "Alice likes tea", 3,
                   valid_at=_t("2024-05-01T09:00:00"), created_at=_t("2024-05-01T09:01:00"))
        coffee = edge("Alice", "LIKES", "Coffee", "Alice likes coffee until August", 3,
                      valid_at=_t("2024-05-01T09:00:00"), invalid_at=_t("2024-08-01T00:00:00"),
                      created_at=_t("2024-05-01T09:01:00"),
                      expired_at=_t("2024-05-01T09:01:00"))  # an end known at once
        knows = edge("Alice", "KNOWS", "Bob", "Alice knows Bob", 4,
                     created_at=_t("2024-06-01T09:01:00"))  # valid_at unknown
        for e in (berlin, paris, tea, coffee, knows):
            await e.save(life)
        for ep, who in ((1, "Alice"), (1, "Berlin"), (2, "Paris"), (3, "Tea"), (4, "Bob")):
            await EpisodicEdge(source_node_uuid=eps[ep - 1].uuid, target_node_uuid=ent[who].uuid,
                               group_id="life", created_at=eps[ep - 1].created_at).save(life)

        work = FalkorDriver(falkor_db=db, database="work")
        await work.build_indices_and_constraints()
        ep = EpisodicNode(name="w-1", group_id="work", source=EpisodeType.text,
                          source_description="notes", content="Bob lives in London.",
                          valid_at=_t("2024-01-01T00:00:00"))
        await ep.save(work)
        bob = EntityNode(name="Bob", group_id="work", labels=["Person"], name_embedding=vec("b"))
        london = EntityNode(name="London", group_id="work", name_embedding=vec("l"))
        for node in (bob, london):
            await node.save(work)
        await EntityEdge(group_id="work", source_node_uuid=bob.uuid,
                         target_node_uuid=london.uuid, name="LIVES_IN",
                         fact="Bob lives in London", fact_embedding=vec("f"),
                         episodes=[ep.uuid], valid_at=_t("2024-01-01T00:00:00"),
                         created_at=_t("2024-01-01T00:01:00")).save(work)
    finally:
        await db.connection.shutdown(save=True)  # the server saves the file and exits
        await db.close()


@pytest.fixture(scope="module")
def graphiti_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("graphiti") / "graphiti.rdb"
    asyncio.run(_write_graph(path))
    return path


@pytest.fixture(scope="module")
def source(graphiti_file: Path) -> Iterator[GraphitiSource]:
    with GraphitiSource(falkordb_file=graphiti_file) as src:
        yield src


@pytest.fixture(scope="module")
def graphiti_facts(source: GraphitiSource) -> list[Fact]:
    """Every edge of group 'life' as graphiti reads it back (its own models)."""
    group = source.read("life")
    names = {n.uuid: n.name for n in group.entities}
    return [Fact(names[e.source_node_uuid], e.name.lower(), names[e.target_node_uuid],
                 e.valid_at, e.invalid_at, e.created_at, e.expired_at) for e in group.edges]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    s = FalkorStore(tmp_path_factory.mktemp("graphmem"), dim=DIM)
    s.open()
    yield s
    s.close()


@pytest.fixture
def service(store: FalkorStore) -> MemoryService:
    # the real clock: graphiti stamped the invalidation with its real "now"
    return MemoryService(make_settings(), store, HashingEmbedder(DIM))


def _run(service: MemoryService, source: GraphitiSource, user_map: dict[str, str],
         dry_run: bool = False) -> dict[str, GroupReport]:
    reports = import_graphiti(service, source, user_map=user_map, dry_run=dry_run)
    return {r.group_id: r for r in reports}


def _dump(service: MemoryService, user: str) -> list[str]:
    out = io.StringIO()
    export_user(service, user, out)
    return sorted(line for line in out.getvalue().splitlines() if '"header"' not in line)


def _triples(service: MemoryService, user: str, as_of: datetime,
             known_at: datetime | None = None) -> set[tuple[str, str, str]]:
    return {(r.subject, r.predicate, r.object)
            for r in service.relations(user, as_of=as_of, known_at=known_at)}


def test_asof_matches_graphiti_validity_for_every_edge(
        service: MemoryService, source: GraphitiSource, graphiti_facts: list[Fact],
        user: str) -> None:
    reports = _run(service, source, {"life": user, "work": f"{user}-work"})
    assert reports["life"].status == "imported", reports["life"].describe()
    assert reports["life"].nodes == {"Episode": 4, "Entity": 6, "Relation": 5}
    assert len(graphiti_facts) == 5
    instants = {datetime(2022, 1, 1, tzinfo=UTC), datetime(2030, 1, 1, tzinfo=UTC)}
    for f in graphiti_facts:
        for edge in (f.start(), f.invalid_at):
            if edge is not None:
                instants |= {edge - timedelta(milliseconds=1), edge,
                             edge + timedelta(days=1)}
    for t in sorted(instants):
        want = {(f.subject, f.predicate, f.object) for f in graphiti_facts if f.valid(t)}
        assert _triples(service, user, t) == want, t
    # every edge of graphiti's is there, history included
    history = service.relations(user, include_history=True)
    assert sorted((r.subject, r.predicate, r.object) for r in history) == sorted(
        (f.subject, f.predicate, f.object) for f in graphiti_facts)
    report = check_store(service.store, [user])  # type: ignore[arg-type]
    assert report.ok, [v.describe() for v in report.violations]


def test_invalidated_edge_is_superseded_history_in_graphiti_system_time(
        service: MemoryService, source: GraphitiSource, graphiti_facts: list[Fact],
        user: str) -> None:
    _run(service, source, {"life": user, "work": f"{user}-work"})
    berlin = next(f for f in graphiti_facts if f.object == "Berlin")
    assert berlin.expired_at is not None and berlin.invalid_at == _t("2024-02-23T00:00:00")
    rels = {r.object: r for r in service.relations(user, include_history=True)}
    old, new = rels["Berlin"], rels["Paris"]
    assert old.status is MemoryStatus.SUPERSEDED and old.valid_until == berlin.invalid_at
    assert new.supersedes_ids == [old.id] and old.superseded_by_ids == [new.id]
    assert [r.object for r in service.history(user, new.id)] == ["Berlin", "Paris"]
    assert old.recorded_at == berlin.created_at
    # before graphiti learned of Paris, Alice lived in Berlin with no end in sight
    june = _t("2024-06-01T00:00:00")
    believed = service.relations(user, as_of=june, known_at=_t("2023-06-01T00:00:00"))
    assert [(r.object, r.valid_until) for r in believed] == [("Berlin", None)]
    # once it did: Paris; the Berlin end is dated by graphiti's expired_at
    assert _triples(service, user, june, known_at=berlin.expired_at) >= {
        ("Alice", "lives_in", "Paris")}
    assert ("Alice", "lives_in", "Berlin") not in _triples(service, user, june,
                                                           known_at=berlin.expired_at)
    # open predicates stay open: two likes at once, one with its own declared end
    likes = service.relations(user, predicate="likes", as_of=_t("2024-07-01T00:00:00"))
    assert sorted(r.object for r in likes) == ["Coffee", "Tea"]
    assert all(r.status is MemoryStatus.ACTIVE for r in likes)
    episodes = service.relations(user, subject="Alice", predicate="knows")[0]
    assert episodes.source_refs and episodes.source_refs[0].startswith("graphiti:")


def test_rerun_changes_nothing_and_a_refused_group_writes_nothing(
        service: MemoryService, source: GraphitiSource, user: str) -> None:
    bob = f"{user}-bob"
    service.add_relation(RelationIn(user_id=bob, subject="Bob", predicate="lives_in",
                                    object="Rome", valid_from=_t("2020-01-01T00:00:00")))
    before_bob = _dump(service, bob)
    dry = _run(service, source, {"life": user, "work": bob}, dry_run=True)
    assert dry["life"].status == "would import", dry["life"].describe()
    assert dry["life"].written["Relation"] == 5
    assert _dump(service, user) == []  # a dry run writes nothing

    first = _run(service, source, {"life": user, "work": bob})
    assert first["life"].status == "imported"
    # group 'work' would put a second lives_in timeline into bob's slot: refused whole
    assert first["work"].status == "failed" and "already holds" in (first["work"].error or "")
    assert _dump(service, bob) == before_bob

    after_first = _dump(service, user)
    second = _run(service, source, {"life": user, "work": bob})
    assert second["life"].status == "unchanged" and second["life"].edges_written == 0
    assert _dump(service, user) == after_first


def test_cli_imports_with_a_user_map(graphiti_file: Path, tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "graphmem.cli", "import-graphiti", "--falkordb-file",
           str(graphiti_file), "--data-dir", str(tmp_path / "mem"), "--embedder", "hashing",
           "--user-map", "life=ana", "--user-map", "work=bob"]
    env = {**os.environ, "GRAPHMEM_EMBEDDING_DIM": str(DIM)}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=180)
    assert done.returncode == 0, done.stderr
    assert "2 group(s) to import" in done.stderr
    assert "group life -> user ana: imported; 4 episodes, 6 entities, 5 relations" \
        in done.stderr, done.stderr
    assert "group work -> user bob: imported; 1 episodes, 2 entities, 1 relations" \
        in done.stderr
    assert "2 group(s) done, 0 failed" in done.stderr
