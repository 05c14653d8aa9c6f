"""The production store: Neo4j 5 through the official ``neo4j`` driver over Bolt.

Index DDL is the one per-server variant: on Neo4j it is native Cypher (``schema.cypher``);
against ArcadeDB's Bolt-compatible server (used by the tests here) indexes are created with
ArcadeDB SQL over its HTTP API and queried by ArcadeDB index names (``cypher/arcadedb/``).
"""

from __future__ import annotations

import base64
import json
import logging
import threading
import urllib.error
import urllib.request
from typing import Any

from graphmem.errors import ConflictError, GraphMemError, UnavailableError
from graphmem.store._fulltext import CorpusStats, backfill
from graphmem.store._fulltext import search as fulltext_bm25
from graphmem.store._plan import plan_steps
from graphmem.store._reads import CypherReads
from graphmem.store.base import EDGE_ENDS, Hit, Row, WritePlan
from graphmem.store.queries import PASSAGE, Queries

log = logging.getLogger(__name__)

# ArcadeDB SQL for the indexes (the Neo4j DDL is refused by that server).
_ARCADE_DDL = """
CREATE VERTEX TYPE {label} IF NOT EXISTS
CREATE PROPERTY {label}.id IF NOT EXISTS STRING
CREATE PROPERTY {label}.userId IF NOT EXISTS STRING
CREATE INDEX IF NOT EXISTS ON {label} (id) UNIQUE
CREATE INDEX IF NOT EXISTS ON {label} (userId) NOTUNIQUE
CREATE PROPERTY {label}.embedding IF NOT EXISTS ARRAY_OF_FLOATS
CREATE INDEX IF NOT EXISTS ON {label} (embedding) LSM_VECTOR METADATA {{dimensions: {dim}, similarity: 'COSINE'}}
DROP INDEX `{label}[{text}]` IF EXISTS
CREATE PROPERTY {label}.terms IF NOT EXISTS STRING
CREATE INDEX IF NOT EXISTS ON {label} (terms) FULL_TEXT METADATA {{"analyzer": "org.apache.lucene.analysis.core.WhitespaceAnalyzer"}}
"""
# The field each label's full-text index covered before the analysed ``terms`` (dropped).
_TEXT_FIELD = {"Episode": "content", "Entity": "name", "Relation": "statement",
               "Abstraction": "conclusion"}
_EDGE_DDL = "CREATE EDGE TYPE {edge} IF NOT EXISTS"

#: A user with at most this many nodes of a label is searched by exact cosine over those
#: nodes; above it, through the shared vector index (``Neo4jStore.vector_search``).
#: Measured on ArcadeDB's Bolt server, 384-d, top-40, p50: exact over 20 / 200 / 1,000 /
#: 3,000 / 10,000 nodes 3 / 5 / 13 / 25 / 103 ms; the index asked for 64 / 256 / 1,024 /
#: 4,096 nearest 11 / 16 / 29 / 55 ms. A user holding a share s of the index needs about
#: k / s of them: a 2,000-node user (exact ~20 ms) beside 100,000 others needs ~2,000.
EXACT_SCAN_MAX = 2000


class Neo4jStore(CypherReads):
    """Neo4j 5 (or a Bolt-compatible server) through the official driver."""

    name = "neo4j"
    # A big user goes through the index shared by all users: asked for twice as many
    # each time, with no cap, until k are the user's or the index has no more.
    vector_fetch_max = None
    vector_fetch_growth = 2

    def __init__(self, *, uri: str, user: str, password: str, database: str, dim: int = 384,
                 index_mode: str = "native", http_url: str = "") -> None:
        self._uri = uri
        self._auth = (user, password)
        self._database = database
        self._dim = dim
        self._index_mode = index_mode
        self._http_url = http_url.rstrip("/")
        self._q = Queries("arcadedb" if index_mode == "arcadedb" else "neo4j")
        self._driver: Any = None
        self._lock = threading.RLock()
        self._indexed: set[tuple[str, str]] = set()  # (label, user) searched by the index
        self._sizes: dict[tuple[str, str], tuple[int, float]] = {}  # -> (nodes, counted at)
        self._ft_stats = CorpusStats()  # BM25's corpus size and length per (label, user)

    # ------------------------------------------------------------------ lifecycle

    def _exec(self, text: str, params: dict[str, Any]) -> list[Any]:
        return self._run(text, params)

    def open(self) -> None:
        import neo4j

        self._q.load()
        try:
            self._driver = neo4j.GraphDatabase.driver(self._uri, auth=self._auth)
            self._driver.verify_connectivity()
        except Exception as e:
            raise UnavailableError(f"cannot reach Neo4j at {self._uri}: "
                                   f"{type(e).__name__}") from e
        self.ensure_schema()

    def ensure_schema(self) -> None:
        """Constraints and indexes, all ``IF NOT EXISTS``: safe to run again."""
        if self._index_mode == "arcadedb":
            for stmt in self._q.statements("schema"):
                self._run(stmt, {}, write=True)
            self._bootstrap_arcadedb()
        else:
            for stmt in self._q.statements("schema", dim=self._dim):
                self._run(stmt, {}, write=True)
        # Nodes written before full text over analysed terms (or by another analysis).
        filled = backfill(self._run, lambda text, params: self._run(text, params, write=True),
                          self._q)
        if filled:
            log.info("full-text terms made for %d nodes", filled)

    def close(self) -> None:
        with self._lock:
            if self._driver is not None:
                self._driver.close()
                self._driver = None

    def _bootstrap_arcadedb(self) -> None:
        if not self._http_url:
            raise GraphMemError("neo4j_http_url is required with neo4j_index_mode=arcadedb")
        for label, text in _TEXT_FIELD.items():
            ddl = _ARCADE_DDL.format(label=label, dim=self._dim, text=text)
            for stmt in filter(None, (s.strip() for s in ddl.splitlines())):
                self._arcade_sql(stmt)
        # passages: the same id, owner and vector indexes, no full text (graphmem._passages)
        ddl = _ARCADE_DDL.split("DROP INDEX", 1)[0].format(label=PASSAGE, dim=self._dim)
        for stmt in filter(None, (s.strip() for s in ddl.splitlines())):
            self._arcade_sql(stmt)
        for edge in EDGE_ENDS:
            self._arcade_sql(_EDGE_DDL.format(edge=edge))

    def _arcade_sql(self, command: str) -> None:
        body = json.dumps({"language": "sql", "command": command}).encode()
        req = urllib.request.Request(f"{self._http_url}/api/v1/command/{self._database}",
                                     data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
        token = base64.b64encode(f"{self._auth[0]}:{self._auth[1]}".encode()).decode()
        req.add_header("Authorization", f"Basic {token}")
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                resp.read()
        except urllib.error.HTTPError as e:
            detail = e.read().decode(errors="replace")[:300]
            raise GraphMemError(f"index DDL failed ({e.code}): {command}: {detail}") from e
        except OSError as e:
            raise UnavailableError(f"cannot reach the server's HTTP API: {e}") from e

    # ------------------------------------------------------------------ plumbing

    def _run(self, text: str, params: dict[str, Any], *, write: bool = False) -> list[Any]:
        if self._driver is None:
            raise UnavailableError("the neo4j store is not open")
        import neo4j

        try:
            records, _, _ = self._driver.execute_query(
                text, params, database_=self._database,
                routing_=neo4j.RoutingControl.WRITE if write else neo4j.RoutingControl.READ)
        except neo4j.exceptions.ServiceUnavailable as e:
            raise UnavailableError("neo4j is unavailable") from e
        except neo4j.exceptions.Neo4jError as e:
            raise GraphMemError(f"neo4j rejected a query: {e.code}") from e
        return list(records)

    # ------------------------------------------------------------------ writes

    def apply(self, plan: WritePlan) -> None:
        if plan.is_empty():
            return
        import neo4j

        steps = plan_steps(self._q, plan)
        if self._driver is None:
            raise UnavailableError("the neo4j store is not open")
        lock = self._q.get("write_version_lock")
        bump = self._q.get("write_version_bump")
        user = {"userId": plan.user_id}

        def work(tx: Any) -> None:
            # The user's version node is locked first, so concurrent writers of one user
            # queue here; one that finds the version moved since its plan was read stops.
            seen = tx.run(lock, user).single()
            if plan.base_version is not None and (seen is None or
                                                  int(seen[0] or 0) != plan.base_version):
                raise _StalePlan
            for text, params in steps:
                tx.run(text, params).consume()
            tx.run(bump, user).consume()

        # One transaction; the driver runs it again on transient failures (deadlocks,
        # lock timeouts, a leader switch), each time whole or not at all.
        try:
            with self._driver.session(database=self._database) as session:
                session.execute_write(work)
        except _StalePlan:
            raise ConflictError("another write of this user landed since the plan was "
                                "made") from None
        except neo4j.exceptions.ServiceUnavailable as e:
            raise UnavailableError("neo4j is unavailable") from e
        except neo4j.exceptions.Neo4jError as e:
            if e.code and "ConstraintValidationFailed" in e.code or \
                    "ConstraintValidationFailed" in str(e):
                # Another writer created the same node since this plan was made: the
                # service plans again from what is stored now.
                raise ConflictError("a concurrent write created the same memory") from e
            raise GraphMemError(f"neo4j rejected a write: {e.code}") from e

    def write_version(self, user_id: str) -> int:
        rows = self._run(self._q.get("write_version"), {"userId": user_id})
        return int(rows[0][0] or 0) if rows else 0

    def bump_access(self, label: str, user_id: str, rows: list[Row]) -> None:
        if rows:
            self._run(self._q.get("bump_access", label=label),
                      {"rows": rows, "userId": user_id}, write=True)

    # ------------------------------------------------------------------ reads

    def fulltext_search(self, label: str, user_id: str, text: str, k: int) -> list[Hit]:
        """Okapi BM25 over the user's analysed ``terms`` (``_fulltext``), counted over the
        user's nodes only, not everyone's in the shared index."""
        return fulltext_bm25(self._run, self._q, self._ft_stats, label, user_id, text, k,
                             max(200, 5 * k))

    def vector_index_dim(self, user_id: str, label: str) -> int | None:
        """Not read (None): the vector indexes are shared by every user of the database
        and made at start-up for the configured dimension; changing it means dropping
        them by hand (``rebuild_vector_index``)."""
        return None

    def vector_index_outdated(self, user_id: str, label: str) -> bool:
        """Never (False): the shared indexes are Neo4j's own, made with its defaults."""
        return False

    def rebuild_vector_index(self, user_id: str, label: str, dim: int) -> None:
        """Not done here: the vector indexes are shared by every user of the database."""
        raise UnavailableError(
            f"the {label} vector index is shared by all users: to store vectors of length "
            f"{dim}, drop the vector indexes (Neo4j: DROP INDEX {label}_embedding) and "
            f"restart graphmem with the new embedder, then run graphmem reembed")

    def vector_search(self, label: str, user_id: str, vector: list[float],
                      k: int) -> list[Hit]:
        """The user's ``k`` nearest ``label`` nodes, whoever else is in the store.

        A user with at most ``EXACT_SCAN_MAX`` such nodes gets exact cosine over them (the
        shared index would rank them among everyone's and drop those below its cut). A
        bigger user goes through the index, asked for more nearest nodes (doubling) until
        ``k`` of them are the user's or the index has no more; how many it took is kept
        as the next search's start.
        """
        if self._label_size(label, user_id, EXACT_SCAN_MAX) <= EXACT_SCAN_MAX:
            rows = self._run(self._q.get("vector_exact", label=label),
                             {"userId": user_id, "vector": vector, "k": k})
            return [Hit(str(r[0]), float(r[1])) for r in rows]
        return super().vector_search(label, user_id, vector, k)


class _StalePlan(Exception):
    """Raised inside a write transaction to roll it back: the plan was decided on an older
    version of the user's memory."""
