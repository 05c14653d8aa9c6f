"""Embedders: hashing (determinism, norm), MiniLM (offline, paraphrase), cache, OpenAI over HTTP."""

from __future__ import annotations

import gc
import math
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from graphmem.embed import (
    CachedEmbedder,
    Embedder,
    HashingEmbedder,
    MiniLMEmbedder,
    OpenAIEmbedder,
    build_embedder,
)
from graphmem.errors import InvalidInputError, UnavailableError


def _norm(v: list[float]) -> float:
    return math.sqrt(sum(x * x for x in v))


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


# --------------------------------------------------------------------------- hashing


def test_hashing_is_deterministic_and_normalised() -> None:
    emb = HashingEmbedder(64)
    texts = ["I prefer Neovim", "我喜欢喝咖啡", "", "   ", "a"]
    first = emb.embed(texts)
    again = HashingEmbedder(64).embed(texts)
    assert first == again
    for vec in first:
        assert len(vec) == 64
        assert _norm(vec) == pytest.approx(1.0)
    assert emb.model_id == "hashing-v1-64"
    assert isinstance(emb, Embedder)


def test_hashing_is_stable_across_processes() -> None:
    # blake2b, not Python's salted hash(): another interpreter gives the same vector.
    code = "from graphmem.embed import HashingEmbedder; print(HashingEmbedder(16).embed_one('x y'))"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert out.stdout.strip() == str(HashingEmbedder(16).embed_one("x y"))


def test_hashing_shared_words_are_closer() -> None:
    emb = HashingEmbedder()
    a, b, c = emb.embed(["the user prefers vim", "user prefers vim editor", "stock market fell"])
    assert _cos(a, b) > _cos(a, c)


def test_hashing_rejects_tiny_dim() -> None:
    with pytest.raises(InvalidInputError):
        HashingEmbedder(2)


# --------------------------------------------------------------------------- MiniLM


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_minilm_constructor_does_no_io(tmp_path: Path) -> None:
    emb = MiniLMEmbedder(tmp_path / "missing.onnx", tmp_path / "missing.json")
    assert emb.dim == 384
    with pytest.raises(UnavailableError):
        emb.embed_one("hello")


def test_minilm_paraphrase_closer_than_unrelated(minilm: MiniLMEmbedder) -> None:
    a, b, c = minilm.embed(["I love dogs", "I adore puppies", "The stock market fell"])
    assert len(a) == 384 == minilm.dim
    assert minilm.model_id == "all-MiniLM-L6-v2-int8"
    for vec in (a, b, c):
        assert _norm(vec) == pytest.approx(1.0, abs=1e-5)
    assert _cos(a, b) > 0.5
    assert _cos(a, b) > _cos(a, c) + 0.3
    assert _cos(a, b) > _cos(b, c) + 0.3


def test_minilm_batch_equals_single(
    minilm: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(minilm, "batch_size", 4)  # several padded batches, out of order
    texts = [f"message {i}: " + "the user switched editors " * (i % 7) for i in range(12)]
    texts += ["", "我现在更喜欢用 VS Code", "word " * 400]  # empty, CJK, over 256 tokens
    batched = minilm.embed(texts)
    assert len(batched) == len(texts)
    for text, vec in zip(texts, batched, strict=True):
        assert _cos(vec, minilm.embed_one(text)) > 0.9999


def test_minilm_thread_safe_first_load() -> None:
    emb = MiniLMEmbedder()
    results: list[list[float]] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(emb.embed_one("same text"))
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(_cos(r, results[0]) > 0.99999 for r in results)


def test_minilm_loads_fully_offline() -> None:
    # A fresh interpreter with every hub/network switch off and no proxy: it must work.
    code = (
        "from graphmem.embed import MiniLMEmbedder;"
        "v = MiniLMEmbedder().embed_one('offline check'); print(len(v))"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
           "NO_PROXY": ""}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert out.stdout.strip() == "384"


# --------------------------------------------------------------------------- cache


class _CountingEmbedder:
    model_id = "counting"
    dim = 16

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self._inner = HashingEmbedder(16)

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return self._inner.embed(texts)

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]


def test_cache_hits_and_lru_eviction() -> None:
    inner = _CountingEmbedder()
    cache = CachedEmbedder(inner, max_entries=3)
    first = cache.embed(["a", "b", "a"])
    assert inner.calls == [["a", "b"]]
    assert first[0] == first[2] == inner._inner.embed_one("a")
    assert cache.embed_one("a") == first[0]
    assert inner.calls == [["a", "b"]]
    assert (cache.hits, cache.misses) == (2, 2)
    cache.embed(["c", "d"])  # evicts "b", the least recently used
    assert len(cache) == 3
    cache.embed(["a", "b"])
    assert inner.calls[-1] == ["b"]
    assert cache.model_id == "counting" and cache.dim == 16


def test_cache_returns_copies() -> None:
    cache = CachedEmbedder(HashingEmbedder(16))
    vec = cache.embed_one("x")
    vec[0] = 99.0
    again = cache.embed_one("x")
    assert again[0] != 99.0
    assert type(again) is list and again == HashingEmbedder(16).embed_one("x")


def test_cache_is_thread_safe() -> None:
    inner = _CountingEmbedder()
    cache = CachedEmbedder(inner, max_entries=50)
    texts = [f"t{i}" for i in range(100)]

    def work() -> None:
        for _ in range(5):
            for vec, text in zip(cache.embed(texts), texts, strict=True):
                assert vec == inner._inner.embed_one(text)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(cache) == 50


# --------------------------------------------------------------------------- OpenAI + factory


def test_openai_embedder_against_stub(openai_stub) -> None:  # type: ignore[no-untyped-def]
    emb = OpenAIEmbedder(openai_stub.base_url, "test-key", "stub-embed", dim=384, timeout=5,
                         max_retries=0, batch_size=3)
    texts = ["I love dogs", "", "I adore puppies", "stock market", "x"]
    vectors = emb.embed(texts)
    assert openai_stub.requests["embeddings"] == 2  # 5 texts in batches of 3
    assert [len(b["input"]) for b in openai_stub.embedding_bodies] == [3, 2]
    expected = HashingEmbedder(384).embed([t if t.strip() else " " for t in texts])
    for got, want in zip(vectors, expected, strict=True):
        assert _cos(got, want) == pytest.approx(1.0, abs=1e-5)
    assert emb.model_id == "openai:stub-embed"
    assert openai_stub.embedding_tokens > 0


def test_openai_embedder_dim_mismatch_and_errors(openai_stub) -> None:  # type: ignore[no-untyped-def]
    wrong = OpenAIEmbedder(openai_stub.base_url, "k", "m", dim=8, timeout=5, max_retries=0)
    with pytest.raises(UnavailableError, match="dim 384"):
        wrong.embed_one("hello")
    asked = OpenAIEmbedder(openai_stub.base_url, "k", "m", dim=32, timeout=5, max_retries=0,
                           send_dimensions=True)
    assert len(asked.embed_one("hello")) == 32 and asked.model_id == "openai:m:32"
    assert openai_stub.embedding_bodies[-1]["dimensions"] == 32
    openai_stub.fail_embeddings(503)
    failing = OpenAIEmbedder(openai_stub.base_url, "k", "m", dim=384, timeout=5, max_retries=0)
    with pytest.raises(UnavailableError):
        failing.embed_one("hello")


def test_build_embedder() -> None:
    assert build_embedder("hashing", dim=32).dim == 32
    assert isinstance(build_embedder("minilm"), MiniLMEmbedder)
    assert isinstance(build_embedder("openai", base_url="http://127.0.0.1:1/v1", dim=8),
                      OpenAIEmbedder)
    cached = build_embedder("hashing", dim=16, cache_entries=10)
    assert isinstance(cached, CachedEmbedder) and cached.model_id == "hashing-v1-16"
    with pytest.raises(InvalidInputError):
        build_embedder("word2vec")
    with pytest.raises(InvalidInputError):
        build_embedder("hashing", nonsense=1)


def test_settle_loads_the_model_and_freezes_the_start_up_heap(tmp_path: Path) -> None:
    from graphmem.bootstrap import build_service, settle
    from graphmem.settings import Settings

    svc = build_service(Settings(data_dir=tmp_path))  # MiniLM (+USE); no store I/O yet
    inner = svc.embedder.inner.latin  # type: ignore[attr-defined]
    assert isinstance(inner, MiniLMEmbedder) and inner._session is None
    alive = [object()]  # a container alive when the service settles
    assert any(o is alive for o in gc.get_objects())
    try:
        settle(svc)
        assert inner._session is not None
        assert gc.get_freeze_count() > 0
        # frozen objects sit outside the generations a collection walks
        assert not any(o is alive for o in gc.get_objects())
    finally:
        gc.unfreeze()
    assert any(o is alive for o in gc.get_objects())
