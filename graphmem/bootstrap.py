"""Wiring: settings in, a ready ``MemoryService`` out (store, embedder, extractor)."""

from __future__ import annotations

import gc

from graphmem._embed_multi import E5Embedder, USEEmbedder
from graphmem._embed_routed import RoutedEmbedder
from graphmem.embed import Embedder, MiniLMEmbedder, build_embedder, engine
from graphmem.extract import Extractor
from graphmem.service import MemoryService
from graphmem.settings import Settings
from graphmem.store.factory import build_store


def build_embedder_from(settings: Settings) -> Embedder:
    if settings.embedder == "openai":
        return build_embedder("openai", cache_entries=settings.embedding_cache,
                              base_url=settings.llm_base_url or None,
                              api_key=settings.llm_api_key.get_secret_value(),
                              model=settings.embedding_model, dim=settings.embedding_dim)
    if settings.embedder == "hashing":
        return build_embedder("hashing", cache_entries=settings.embedding_cache,
                              dim=settings.embedding_dim)
    if settings.embedder in ("use", "e5", "minilm+use"):
        return build_embedder(settings.embedder, cache_entries=settings.embedding_cache)
    return build_embedder("minilm", cache_entries=settings.embedding_cache)


def build_extractor(settings: Settings) -> Extractor:
    from graphmem.extract.rules import RuleExtractor

    rules = RuleExtractor()
    if settings.extractor != "llm":
        return rules
    from graphmem.extract.llm import LLMExtractor

    return LLMExtractor(base_url=settings.llm_base_url or None, api_key=settings.llm_api_key,
                        model=settings.llm_model, fallback=rules,
                        batch_size=settings.llm_batch_size,
                        max_retries=settings.llm_max_retries, timeout=settings.llm_timeout_s)


def build_service(settings: Settings) -> MemoryService:
    """A service over the configured store; call ``open()`` before use (in the lifespan)."""
    return MemoryService(settings, build_store(settings), build_embedder_from(settings),
                         extractor=build_extractor(settings))


def settle(service: MemoryService) -> None:
    """Ready an open service for a long run: load the local embedding model now (a missing
    model file fails here, not on the first request), then move everything alive so far —
    imported modules, the model, start-up data — out of the garbage collector's sight.

    Without it a full collection walks the whole start-up heap (about 12 ms for a service
    process here) and lands, every few dozen recalls, on whichever request triggered it.
    For processes that run one service for their lifetime (``graphmem serve``, the
    benchmarks): frozen objects are never collected.
    """
    inner = engine(service.embedder)
    if isinstance(inner, RoutedEmbedder):  # MiniLM now; USE on the first Chinese text
        inner = inner.latin
    if isinstance(inner, MiniLMEmbedder | USEEmbedder | E5Embedder):
        inner.embed(["warm-up"])
    gc.collect()
    gc.freeze()
