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

from graphmem.errors import GraphMemError, UnavailableError
from graphmem.store.base import EDGE_ENDS, Hit, Row, WritePlan, expand_from
from graphmem.store.queries import Queries

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
CREATE PROPERTY {label}.{text} IF NOT EXISTS STRING
CREATE INDEX IF NOT EXISTS ON {label} ({text}) FULL_TEXT METADATA {{"analyzer": "org.apache.lucene.analysis.cjk.CJKAnalyzer"}}
"""
_TEXT_FIELD = {"Episode": "content", "Entity": "name", "Relation": "statement",
               "Abstraction": "conclusion"}
_EDGE_DDL = "CREATE EDGE TYPE {edge} IF NOT EXISTS"


class Neo4jStore:
    """Neo4j 5 (or a Bolt-compatible server) through the official driver."""

    name = "neo4j"

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

    # ------------------------------------------------------------------ lifecycle

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

    def _rows(self, name: str, params: dict[str, Any], **slots: str | int) -> list[Row]:
        return [_props(r[0]) for r in self._run(self._q.get(name, **slots), params)]

    # ------------------------------------------------------------------ writes

    def apply(self, plan: WritePlan) -> None:
        if plan.is_empty():
            return
        import neo4j

        steps = self._plan_steps(plan)
        if self._driver is None:
            raise UnavailableError("the neo4j store is not open")
        try:
            with self._driver.session(database=self._database) as session:
                with session.begin_transaction() as tx:
                    for text, params in steps:
                        tx.run(text, params).consume()
                    tx.commit()
        except neo4j.exceptions.ServiceUnavailable as e:
            raise UnavailableError("neo4j is unavailable") from e
        except neo4j.exceptions.Neo4jError as e:
            raise GraphMemError(f"neo4j rejected a write: {e.code}") from e

    def _plan_steps(self, plan: WritePlan) -> list[tuple[str, dict[str, Any]]]:
        u = plan.user_id
        steps: list[tuple[str, dict[str, Any]]] = []
        for name, nodes in (("upsert_episodes", plan.episodes),
                            ("upsert_entities", plan.entities),
                            ("upsert_relations", plan.relations)):
            if nodes:
                steps.append((self._q.get(name), {"rows": [
                    {"id": n.id, "props": n.props, "embedding": n.embedding}
                    for n in nodes]}))
        for label, rows in plan.updates.items():
            steps.append((self._q.get("set_props", label=label),
                          {"rows": rows, "userId": u}))
        for edge, rows in plan.expire.items():
            src, dst = EDGE_ENDS[edge]
            steps.append((self._q.get("expire_links", edge=edge, src=src, dst=dst),
                          {"rows": rows, "userId": u, "at": plan.at}))
        for edge, rows in plan.links.items():
            src, dst = EDGE_ENDS[edge]
            steps.append((self._q.get("link", edge=edge, src=src, dst=dst),
                          {"rows": rows, "userId": u}))
        return steps

    def bump_access(self, label: str, rows: list[Row]) -> None:
        if rows:
            self._run(self._q.get("bump_access", label=label), {"rows": rows}, write=True)

    # ------------------------------------------------------------------ reads

    def nodes(self, label: str, user_id: str, ids: list[str]) -> list[Row]:
        if not ids:
            return []
        return self._rows("nodes_by_ids", {"ids": ids, "userId": user_id}, label=label)

    def relation_group(self, user_id: str, group_key: str) -> list[Row]:
        return self._rows("relation_group", {"userId": user_id, "groupKey": group_key})

    def relations(self, user_id: str, *, subject: str | None, predicate: str | None,
                  obj: str | None, as_of: int | None, known_at: int,
                  include_expired: bool, limit: int) -> list[Row]:
        return self._rows("relations", {
            "userId": user_id, "subject": subject, "predicate": predicate, "object": obj,
            "asOf": as_of, "knownAt": known_at, "includeExpired": include_expired,
            "limit": limit})

    def chain_edges(self, user_id: str, ids: list[str]) -> list[Row]:
        if not ids:
            return []
        rows = self._run(self._q.get("chain_edges"), {"ids": ids, "userId": user_id})
        return [{"type": r[0], "src": r[1], "dst": r[2], "at": r[3], "expiredAt": r[4]}
                for r in rows]

    def entities_by_norm(self, user_id: str, norms: list[str]) -> list[Row]:
        if not norms:
            return []
        return self._rows("entities_by_norm", {"userId": user_id, "norms": norms})

    def vector_search(self, label: str, user_id: str, vector: list[float],
                      k: int) -> list[Hit]:
        fetch = min(max(k * 8, 64), 2000)
        rows = self._run(self._q.get("vector_search", label=label),
                         {"k": fetch, "vector": vector, "userId": user_id})
        return [Hit(r[0], float(r[1])) for r in rows[:k]]

    def fulltext_search(self, label: str, user_id: str, text: str, k: int) -> list[Hit]:
        from graphmem.store.falkor import fulltext_query

        query = fulltext_query(text).replace(" | ", " ")
        if not query:
            return []
        try:
            slots: dict[str, str] = {"label": label}
            if self._index_mode == "arcadedb":
                slots["text"] = _TEXT_FIELD[label]
            rows = self._run(self._q.get("fulltext_search", **slots),
                             {"text": query, "k": k, "userId": user_id})
        except GraphMemError:
            log.warning("full-text query rejected for %r", query)
            return []
        return [Hit(r[0], float(r[1])) for r in rows]

    def expand(self, user_id: str, entity_ids: list[str], limit: int) -> list[Hit]:
        if not entity_ids:
            return []

        def degrees(ids: list[str]) -> dict[str, int]:
            rows = self._run(self._q.get("entity_degrees"), {"ids": ids, "userId": user_id})
            return {r[0]: int(r[1]) for r in rows}

        return expand_from(degrees, lambda ids, k: self.adjacent(user_id, ids, k),
                           entity_ids, limit)

    def adjacent(self, user_id: str, entity_ids: list[str], limit: int) -> list[Row]:
        if not entity_ids:
            return []
        rows = self._run(self._q.get("adjacent_relations"),
                           {"ids": entity_ids, "userId": user_id, "limit": limit})
        return [{"id": r[0], "subjectId": r[1], "objectId": r[2]} for r in rows]

    def episode_mentions(self, user_id: str, entity_ids: list[str], limit: int) -> list[Hit]:
        if not entity_ids:
            return []
        rows = self._run(self._q.get("episode_mentions"),
                         {"ids": entity_ids, "userId": user_id, "limit": limit})
        return [Hit(r[0], float(r[1])) for r in rows]

    def episode_speakers(self, user_id: str, limit: int) -> list[Row]:
        """Distinct speakers of the user's episodes with their episode counts."""
        rows = self._run(self._q.get("episode_speakers"), {"userId": user_id, "limit": limit})
        return [{"speaker": r[0], "episodes": int(r[1] or 0)} for r in rows]

    def session_context(self, user_id: str, ids: list[str], span_ms: int,
                        limit: int) -> list[Row]:
        """Episodes of the same sessions as ``ids``, within ``span_ms`` of them."""
        if not ids:
            return []
        return self._rows("session_context", {"ids": ids, "userId": user_id,
                                               "spanMs": span_ms, "limit": limit})

    def page_episodes(self, user_id: str, *, session_id: str | None, with_forgotten: bool,
                      offset: int, limit: int) -> tuple[int, list[str]]:
        rows = self._run(self._q.get("page_episodes"), {
            "userId": user_id, "sessionId": session_id, "withForgotten": with_forgotten,
            "offset": offset, "limit": limit})
        return (int(rows[0][0]), list(rows[0][1] or [])) if rows else (0, [])

    def page_entities(self, user_id: str, *, needle: str | None, with_forgotten: bool,
                      offset: int, limit: int) -> tuple[int, list[str]]:
        rows = self._run(self._q.get("page_entities"), {
            "userId": user_id, "needle": needle, "withForgotten": with_forgotten,
            "offset": offset, "limit": limit})
        return (int(rows[0][0]), list(rows[0][1] or [])) if rows else (0, [])

    def evidence(self, user_id: str, relation_ids: list[str]) -> list[Row]:
        if not relation_ids:
            return []
        rows = self._run(self._q.get("evidence_of"), {"ids": relation_ids, "userId": user_id})
        return [{"rid": r[0], "id": r[1], "sourceRef": r[2], "occurredAt": r[3]} for r in rows]

    def count(self, label: str, user_id: str) -> tuple[int, int]:
        rows = self._run(self._q.get("count_nodes", label=label), {"userId": user_id})
        if not rows:
            return 0, 0
        return int(rows[0][0] or 0), int(rows[0][1] or 0)

    def relation_status_counts(self, user_id: str) -> dict[str, int]:
        rows = self._run(self._q.get("count_relations_by_status"), {"userId": user_id})
        return {str(r[0]): int(r[1]) for r in rows}

    def export_nodes(self, label: str, user_id: str, skip: int, limit: int) -> list[Row]:
        return self._rows("export_nodes", {"userId": user_id, "skip": skip, "limit": limit},
                          label=label)

    def export_edges(self, edge: str, user_id: str) -> list[Row]:
        src, dst = EDGE_ENDS[edge]
        rows = self._run(self._q.get("export_edges", edge=edge, src=src, dst=dst),
                         {"userId": user_id})
        return [{"src": r[0], "dst": r[1], "props": dict(r[2] or {})} for r in rows]


def _props(value: Any) -> Row:
    props = dict(value or {})
    props.pop("embedding", None)
    return props
