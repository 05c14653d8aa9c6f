"""The embedded store searches a user's vectors exactly up to ``EXACT_SCAN_MAX`` nodes of a
label: the same answer before and after the store is reopened (its HNSW index rebuilt),
ties in id order, however many near-identical vectors the user holds (a chat repeats its
sentences); above the limit, through the index."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from graphmem.embed import HashingEmbedder
from graphmem.inputs import EpisodeIn
from graphmem.service import MemoryService
from graphmem.store import falkor as falkor_store
from graphmem.store.base import NodeWrite, WritePlan
from graphmem.store.falkor import FalkorStore

from .conftest import DIM, FakeClock, make_settings

USER = "exact-user"
OTHER = "exact-other"


def _unit(v: list[float]) -> list[float]:
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def _write(store: FalkorStore, user: str, vectors: dict[str, list[float]]) -> str:
    """Write ``vectors`` as episodes of ``user``; returns the id of the one episode the
    service wrote first (a template for the others' fields)."""
    service = MemoryService(make_settings(), store, HashingEmbedder(DIM), clock=FakeClock())
    first = service.add_episode(EpisodeIn(user_id=user, occurred_at="2025-01-01T00:00:00Z",
                                          content="template", source_ref="t")).episode
    template = store.nodes("Episode", user, [first.id])[0]
    plan = WritePlan(user_id=user, at=template["createdAt"])
    for i, (node_id, vec) in enumerate(sorted(vectors.items())):
        plan.episodes.append(NodeWrite(node_id, {**template, "id": node_id,
                                                 "content": f"text {i}", "sourceRef": node_id},
                                       vec))
    store.apply(plan)
    return first.id


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, dict[str, list[float]], list[float]]:
    rng = random.Random(7)
    query = _unit([rng.gauss(0, 1) for _ in range(DIM)])
    # 120 copies of one vector far from the question (a sentence said again and again),
    # 80 scattered ones, and three that answer it, the best first
    same = _unit([rng.gauss(0, 1) for _ in range(DIM)])
    vectors = {f"epi_dup_{i:03d}": same for i in range(120)}
    vectors.update({f"epi_rnd_{i:03d}": _unit([rng.gauss(0, 1) for _ in range(DIM)])
                    for i in range(80)})
    for rank, mix in enumerate((0.9, 0.7, 0.5)):
        noise = [rng.gauss(0, 1) for _ in range(DIM)]
        vectors[f"epi_ans_{rank}"] = _unit([mix * q + (1 - mix) * n / math.sqrt(DIM) * 3
                                            for q, n in zip(query, noise, strict=True)])
    store = FalkorStore(tmp_path / "store", dim=DIM)
    store.open()
    try:
        template = _write(store, USER, vectors)
        _write(store, OTHER, {"epi_other_000": query})  # the best match of all: not ours
        vectors[template] = HashingEmbedder(DIM).embed_one("template")
    finally:
        store.close()
    return tmp_path / "store", vectors, query


def _exact(vectors: dict[str, list[float]], query: list[float], k: int) -> list[str]:
    return sorted(vectors, key=lambda i: (-_cos(query, vectors[i]), i))[:k]


def test_the_true_top_k_before_and_after_a_reopen(world) -> None:  # type: ignore[no-untyped-def]
    path, vectors, query = world
    answers = []
    for _ in range(2):  # the second opening rebuilds the index from disk
        store = FalkorStore(path, dim=DIM)
        store.open()
        try:
            for k in (3, 10, 40):
                hits = store.vector_search("Episode", USER, query, k)
                assert [h.id for h in hits] == _exact(vectors, query, k), k
                assert all(abs(h.score - _cos(query, vectors[h.id])) < 1e-3 for h in hits)
            answers.append([h.id for h in store.vector_search("Episode", USER, query, 40)])
        finally:
            store.close()
    assert answers[0] == answers[1]
    assert answers[0][:3] == ["epi_ans_0", "epi_ans_1", "epi_ans_2"]
    assert "epi_other_000" not in answers[0]


def test_ties_come_in_id_order(world) -> None:  # type: ignore[no-untyped-def]
    path, vectors, _ = world
    same = vectors["epi_dup_000"]
    store = FalkorStore(path, dim=DIM)
    store.open()
    try:
        hits = store.vector_search("Episode", USER, same, 10)
    finally:
        store.close()
    assert [h.id for h in hits] == [f"epi_dup_{i:03d}" for i in range(10)]


def test_past_the_limit_the_index_answers(world,  # type: ignore[no-untyped-def]
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    path, _, query = world
    monkeypatch.setattr(falkor_store, "EXACT_SCAN_MAX", 50)
    store = FalkorStore(path, dim=DIM)
    store.open()
    try:
        hits = store.vector_search("Episode", USER, query, 10)
        assert store._sizes[("Episode", USER)][0] > 50  # counted once, then the index
        assert hits and hits[0].id == "epi_ans_0"
        assert "epi_other_000" not in {h.id for h in hits}
    finally:
        store.close()


def test_vectors_of_another_length_leave_the_search_to_the_index(world) -> None:  # type: ignore[no-untyped-def]
    # an embedder of another length was configured and `graphmem reembed` has not reached
    # every node: the scan cannot compare them, the index holds only its own length
    path, vectors, query = world
    store = FalkorStore(path, dim=DIM)
    store.open()
    try:
        graph = store._handle(falkor_store.tenant_graph("graphmem", USER))
        graph.query("MATCH (n:Episode {id: 'epi_rnd_000'}) SET n.embedding = vecf32($v)",
                    {"v": [0.5] * (DIM * 2)})
        first = store.vector_search("Episode", USER, query, 5)  # no error: the index
        assert first and first[0].id == "epi_ans_0"
        assert ("Episode", USER) in store._mixed
        assert "epi_rnd_000" not in {h.id for h in store.vector_search("Episode", USER,
                                                                       query, 40)}
    finally:
        store.close()
