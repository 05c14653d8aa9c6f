"""graphiti-core as a benchmark peer: its graph built without an LLM, searched its own way.

Entity nodes and ``EntityEdge`` facts (with ``valid_at`` / ``invalid_at`` / ``expired_at``)
are written with graphiti's own bulk writer (``add_nodes_and_edges_bulk``) into an embedded
FalkorDB (falkordblite) in a temporary directory, one graph per ``group_id`` as graphiti's
FalkorDB driver does. Searches go through graphiti's ``search`` with one of its recipes
(``EDGE_HYBRID_SEARCH_RRF``: full text over facts + cosine over every fact vector, fused by
RRF); the query is embedded by a local embedder object wrapping graphmem's embedder, so both
systems compare the same vectors. No LLM or cross-encoder is ever called.

graphiti-core is optional: ``load()`` says why it is missing instead of failing.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import tempfile
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from _common import proc_status_kb, server_pid

T = TypeVar("T")

VERSION_WANTED = "0.30.2"


def load() -> tuple[bool, str]:
    """(importable, version or the reason it is not)."""
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    try:
        from importlib.metadata import version

        import graphiti_core.search.search  # noqa: F401
        from redislite.async_falkordb_client import AsyncFalkorDB  # noqa: F401

        return True, version("graphiti-core")
    except Exception as e:  # ImportError, or a broken install
        return False, f"graphiti-core not importable ({type(e).__name__}: {e}); " \
                      f"pip install 'graphiti-core=={VERSION_WANTED}'"


@dataclass(slots=True)
class PeerNode:
    key: str
    name: str
    group: str


@dataclass(slots=True)
class PeerEdge:
    key: str  # the caller's id for the fact, to map results back
    group: str
    source: str  # PeerNode.key
    target: str
    name: str
    fact: str
    created_at: datetime
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    expired_at: datetime | None = None
    embedding: list[float] | None = None


@dataclass(slots=True)
class PeerHit:
    key: str
    fact: str
    valid_at: datetime | None
    invalid_at: datetime | None


@dataclass(slots=True)
class GraphitiPeer:
    """One embedded FalkorDB holding graphiti graphs; all calls are synchronous."""

    embedder: Any  # a graphmem Embedder
    directory: Path | None = None
    batch: int = 1000
    _runner: asyncio.Runner | None = None
    _db: Any = None
    _drivers: dict[str, Any] = field(default_factory=dict)
    _clients: dict[str, Any] = field(default_factory=dict)
    _uuid_of: dict[str, str] = field(default_factory=dict)  # node key -> uuid
    _key_of: dict[str, str] = field(default_factory=dict)  # edge uuid -> caller key
    _tmp: Any = None
    pid: int | None = None
    query_timeout_ms: int | None = None  # FalkorDB's TIMEOUT_DEFAULT for every query

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        from redislite.async_falkordb_client import AsyncFalkorDB

        if self.directory is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="graphiti-peer-")
            self.directory = Path(self._tmp.name)
        self._runner = asyncio.Runner()
        self._db = self._run_async(_make_db(AsyncFalkorDB, self.directory / "graphiti.rdb"))
        self.pid = server_pid(self._db)
        # graphiti logs every failed query with its parameters (vectors included)
        logging.getLogger("graphiti_core").setLevel(logging.CRITICAL)
        if self.query_timeout_ms:
            self._run_async(self._db.connection.execute_command(
                "GRAPH.CONFIG", "SET", "TIMEOUT_DEFAULT", int(self.query_timeout_ms)))

    def close(self) -> None:
        pid = self.pid
        if self._runner is not None:
            try:
                self._run_async(self._db.close())  # stops the server it started
            except Exception:
                pass
            self._runner.close()
            self._runner = None
        if pid is not None:
            _stop(pid)
        # The async client's finaliser would "shut down" the server again (an un-awaited
        # coroutine) and then wait up to 17 s for the pid to vanish, which a dead server
        # left unreaped (a zombie, when nothing reaps orphans) never does: that wait landed
        # inside the next size's timed ingest. The server is stopped above; skip it.
        client = getattr(self._db, "client", None)
        if client is not None:
            client._async_managed = True
        self._db = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def server_rss_kb(self) -> tuple[int | None, int | None]:
        if self.pid is None:
            return None, None
        return proc_status_kb(self.pid, "VmRSS"), proc_status_kb(self.pid, "VmHWM")

    def _run_async(self, coro: Coroutine[Any, Any, T]) -> T:
        assert self._runner is not None, "start() first"
        return self._runner.run(coro)

    # ------------------------------------------------------------------ graphs

    def _driver(self, group: str) -> Any:
        drv = self._drivers.get(group)
        if drv is None:
            from graphiti_core.driver.falkordb_driver import FalkorDriver

            drv = FalkorDriver(falkor_db=self._db, database=group)
            self._run_async(drv.build_indices_and_constraints())
            self._drivers[group] = drv
        return drv

    def _clients_for(self, group: str) -> Any:
        c = self._clients.get(group)
        if c is None:
            from graphiti_core.graphiti_types import GraphitiClients
            from graphiti_core.tracer import NoOpTracer

            c = GraphitiClients(driver=self._driver(group), llm_client=_no_llm(),
                                embedder=_embedder_client(self.embedder),
                                cross_encoder=_no_cross_encoder(), tracer=NoOpTracer())
            self._clients[group] = c
        return c

    def add(self, nodes: Sequence[PeerNode], edges: Sequence[PeerEdge],
            created_at: datetime) -> None:
        """Write nodes and edges (grouped per ``group``) with graphiti's bulk writer."""
        from graphiti_core.edges import EntityEdge
        from graphiti_core.nodes import EntityNode
        from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

        by_group_nodes: dict[str, list[PeerNode]] = {}
        for n in nodes:
            by_group_nodes.setdefault(n.group, []).append(n)
        by_group_edges: dict[str, list[PeerEdge]] = {}
        for e in edges:
            by_group_edges.setdefault(e.group, []).append(e)
        for group in sorted(set(by_group_nodes) | set(by_group_edges)):
            drv = self._driver(group)
            g_nodes = by_group_nodes.get(group, [])
            names = [n.name for n in g_nodes]
            vecs = self.embedder.embed(names) if names else []
            entity_nodes = []
            for n, v in zip(g_nodes, vecs, strict=True):
                en = EntityNode(name=n.name, group_id=group, labels=["Entity"], summary="",
                                created_at=created_at, name_embedding=v)
                self._uuid_of[n.key] = en.uuid
                entity_nodes.append(en)
            g_edges = by_group_edges.get(group, [])
            missing = [e for e in g_edges if e.embedding is None]
            if missing:
                for e, v in zip(missing, self.embedder.embed([e.fact for e in missing]),
                                strict=True):
                    e.embedding = v
            client = _embedder_client(self.embedder)
            # nodes first: an edge's MATCH needs both of its ends stored
            for start in range(0, len(entity_nodes), self.batch):
                self._run_async(add_nodes_and_edges_bulk(
                    drv, [], [], entity_nodes[start:start + self.batch], [], client))
            for start in range(0, len(g_edges), self.batch):
                chunk = []
                for e in g_edges[start:start + self.batch]:
                    ee = EntityEdge(group_id=group, source_node_uuid=self._uuid_of[e.source],
                                    target_node_uuid=self._uuid_of[e.target], name=e.name,
                                    fact=e.fact, fact_embedding=e.embedding, episodes=[],
                                    created_at=e.created_at, valid_at=e.valid_at,
                                    invalid_at=e.invalid_at, expired_at=e.expired_at)
                    self._key_of[ee.uuid] = e.key
                    chunk.append(ee)
                self._run_async(add_nodes_and_edges_bulk(drv, [], [], [], chunk, client))

    # ------------------------------------------------------------------ search

    def search(self, group: str, query: str, limit: int = 10, only_valid: bool = False,
               methods: str = "hybrid") -> list[PeerHit]:
        """graphiti's edge hybrid search (EDGE_HYBRID_SEARCH_RRF) within one group.

        ``only_valid`` adds graphiti's own filter ``invalid_at IS NULL`` (its way to ask for
        facts not known to have ended); off, no temporal mode is set. ``methods`` "cosine"
        or "bm25" keeps one of the recipe's two searches (same reranker), to see which of
        them the time goes to.
        """
        return self._run_async(self._search(group, query, limit, only_valid, methods))

    async def _search(self, group: str, query: str, limit: int, only_valid: bool,
                      methods: str) -> list[PeerHit]:
        from graphiti_core.search.search import search
        from graphiti_core.search.search_config import EdgeSearchMethod
        from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF
        from graphiti_core.search.search_filters import (
            ComparisonOperator,
            DateFilter,
            SearchFilters,
        )

        config = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
        config.limit = limit
        if methods != "hybrid" and config.edge_config is not None:
            config.edge_config.search_methods = [
                EdgeSearchMethod.cosine_similarity if methods == "cosine"
                else EdgeSearchMethod.bm25]
        filters = SearchFilters()
        if only_valid:
            filters = SearchFilters(invalid_at=[[DateFilter(
                comparison_operator=ComparisonOperator.is_null)]])
        res = await search(self._clients_for(group), query, [group], config, filters)
        return [PeerHit(self._key_of.get(e.uuid, e.uuid), e.fact, e.valid_at, e.invalid_at)
                for e in res.edges]


def _stop(pid: int, grace_s: float = 10.0) -> None:
    """Stop the peer's server by pid and wait until it has exited.

    On SIGTERM the server saves its data file first; it must finish (and exit) before the
    caller deletes the directory, or the save fails and the server refuses to exit.
    """
    def alive() -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        return state not in ("Z", "X")  # an exited server its parent has not reaped

    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 2.0)):
        if not alive():
            return
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait_s
        while alive() and time.monotonic() < deadline:
            time.sleep(0.05)


async def _make_db(cls: Any, path: Path) -> Any:
    # created inside the runner's loop so its connection belongs to that loop
    return cls(str(path))


# --------------------------------------------------------------------------- stand-ins


def _embedder_client(embedder: Any) -> Any:
    from graphiti_core.embedder.client import EmbedderClient

    class LocalEmbedder(EmbedderClient):
        """graphiti's embedder interface over a graphmem embedder (no network)."""

        async def create(self, input_data: Any) -> list[float]:
            if isinstance(input_data, str):
                return list(embedder.embed_one(input_data))
            first = list(input_data)[0]
            return list(embedder.embed_one(str(first)))

        async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
            return [list(v) for v in embedder.embed(input_data_list)]

    return LocalEmbedder()


def _no_llm() -> Any:
    from graphiti_core.llm_client.client import LLMClient

    class NoLLM(LLMClient):
        async def _generate_response(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            raise RuntimeError("the benchmark peer never calls an LLM")

    return NoLLM(None)


def _no_cross_encoder() -> Any:
    from graphiti_core.cross_encoder.client import CrossEncoderClient

    class NoCrossEncoder(CrossEncoderClient):
        async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
            raise RuntimeError("the benchmark peer never calls a cross-encoder")

    return NoCrossEncoder()
