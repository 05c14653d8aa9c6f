"""Read queries shared by the Cypher stores: the same named queries, the same row shapes.

A store mixes this in and provides ``_q`` (its ``Queries``) and ``_exec(text, params)``
(run one read query, return its rows as lists); only the runner differs per backend.
"""

from __future__ import annotations

import functools
import re
import time
from typing import Any

from graphmem.model import from_ms, instant_in_range, to_ms
from graphmem.store.base import EDGE_ENDS, Hit, RelationPageQuery, Row, expand_from
from graphmem.store.queries import LABELS, Queries

_RECALL_ROWS = {"Episode": "recall_episodes", "Entity": "recall_entities",
                "Relation": "recall_relations", "Abstraction": "recall_abstractions"}

#: The most nodes a vector search asks the shared index for.
VECTOR_FETCH_MAX = 2000
#: How long a user's node count (the exact / index choice of vector search) is trusted
#: before it is read again.
SIZE_TTL_S = 30.0


class CypherReads:
    """Reads by named query; every one is scoped to a ``user_id``."""

    _q: Queries
    #: (label, user) -> (nodes, counted at); and the pairs past the exact-scan limit
    _sizes: dict[tuple[str, str], tuple[int, float]]
    _indexed: set[tuple[str, str]]

    def _exec(self, text: str, params: dict[str, Any]) -> list[Any]:
        raise NotImplementedError

    def _label_size(self, label: str, user_id: str, limit: int) -> int:
        """How many ``label`` nodes the user has, counted at most every ``SIZE_TTL_S``; a
        user past ``limit`` (the store's exact-scan limit) is not counted again.

        A count a little stale only moves the exact / index choice of vector search, never
        the answer's correctness; nodes are never deleted but by ``gc``."""
        key = (label, user_id)
        if key in self._indexed:
            return limit + 1
        known = self._sizes.get(key)
        now = time.monotonic()
        if known is not None and now - known[1] < SIZE_TTL_S:
            return known[0]
        rows = self._exec(self._q.get("count_nodes", label=label), {"userId": user_id})
        size = int(rows[0][0] or 0) if rows else 0
        for cache in (self._sizes, self._indexed):
            if len(cache) >= 65_536:
                cache.clear()
        self._sizes[key] = (size, now)
        if size > limit:
            self._indexed.add(key)
        return size

    def _rows(self, name: str, params: dict[str, Any], **slots: str | int) -> list[Row]:
        return [_readable(_props(r[0])) for r in self._exec(self._q.get(name, **slots), params)]

    def nodes(self, label: str, user_id: str, ids: list[str]) -> list[Row]:
        if not ids:
            return []
        return self._rows("nodes_by_ids", {"ids": ids, "userId": user_id}, label=label)

    def recall_rows(self, label: str, user_id: str, ids: list[str]) -> list[Row]:
        """The fields recall ranks and shows, of the ``label`` nodes with these ids (the
        query returns them as columns, named by their aliases)."""
        if not ids:
            return []
        text = self._q.get(_RECALL_ROWS[label])
        names = return_columns(text)
        return [_readable(dict(zip(names, r, strict=True)))
                for r in self._exec(text, {"ids": ids, "userId": user_id})]

    #: the most nodes one vector search asks the index for (None: no cap)
    vector_fetch_max: int | None = VECTOR_FETCH_MAX
    #: how many times more to ask for when the user's share came out short
    vector_fetch_growth = 4

    def vector_search(self, label: str, user_id: str, vector: list[float],
                      k: int) -> list[Hit]:
        """This user's ``k`` nearest ``label`` nodes, through the label's vector index.

        The index may hold other users' nodes, so it is asked for more than ``k`` and the
        user's are kept. How many to ask for is learned per user and label: it starts at
        ``max(2k, 64)`` and grows by ``vector_fetch_growth`` (up to ``vector_fetch_max``,
        or until the index runs dry when that is None) while the user's share comes out
        short and the index had more to give; a large tenant pays for little over-fetch, a
        small one for the few retries its first searches take.
        """
        key = (label, user_id)
        # at least 64: the index's search breadth follows the count asked for, and below
        # that its recall@10 dropped (0.94 at 10k relations against 0.99 with 64)
        fetch = max(self._fetch_hints.get(key, 0), 2 * k, 64)
        text = self._q.get("vector_search", label=label)
        cap = self.vector_fetch_max
        while True:
            rows = self._exec(text, {"fetch": fetch, "k": k, "vector": vector,
                                     "userId": user_id})
            seen, mine = (int(rows[0][0] or 0), list(rows[0][1] or [])) if rows else (0, [])
            if len(mine) >= k or seen < fetch or (cap is not None and fetch >= cap):
                break
            fetch *= self.vector_fetch_growth
            if cap is not None:
                fetch = min(fetch, cap)
        if fetch > 2 * k:
            if len(self._fetch_hints) >= 65_536:
                self._fetch_hints.clear()
            self._fetch_hints[key] = fetch
        return [Hit(str(m[0]), float(m[1])) for m in mine[:k]]

    @property
    def _fetch_hints(self) -> dict[tuple[str, str], int]:
        hints = self.__dict__.get("_vector_fetch_hints")
        if hints is None:
            hints = self.__dict__.setdefault("_vector_fetch_hints", {})
        return hints

    def relation_group(self, user_id: str, group_key: str) -> list[Row]:
        return self._rows("relation_group", {"userId": user_id, "groupKey": group_key})

    def relations(self, user_id: str, *, subject: str | None, predicate: str | None,
                  obj: str | None, page: RelationPageQuery, scope: str | None = None,
                  session_id: str | None = None) -> list[Row]:
        """One page of the user's relations (``relation_listed``), in the page's order;
        under a scope, that scope's and the user level's."""
        return self._rows("relations", {
            "userId": user_id, "subject": subject, "predicate": predicate, "object": obj,
            "scope": scope, "sessionId": session_id, **page.params()}, **page.slots())

    def entity_relations(self, user_id: str, entity_id: str,
                         page: RelationPageQuery) -> list[Row]:
        """One page of the relations an entity is the subject or object of."""
        return self._rows("entity_relations", {"userId": user_id, "entityId": entity_id,
                                               **page.params()}, **page.slots())

    def foreign_ids(self, label: str, user_id: str, ids: list[str]) -> list[str]:
        """Which of ``ids`` name a ``label`` node that is not ``user_id``'s."""
        if not ids:
            return []
        rows = self._exec(self._q.get("foreign_ids", label=label),
                          {"ids": ids, "userId": user_id})
        return [str(r[0]) for r in rows]

    def chain_edges(self, user_id: str, ids: list[str]) -> list[Row]:
        if not ids:
            return []
        rows = self._exec(self._q.get("chain_edges"), {"ids": ids, "userId": user_id})
        return [{"type": r[0], "src": r[1], "dst": r[2], "at": r[3], "expiredAt": r[4]}
                for r in rows]

    def episode_versions(self, user_id: str, ids: list[str]) -> list[Row]:
        """SUPERSEDES / DISPUTED edges between episodes touching ``ids``
        (``graphmem._episode_versions``), with both ends' event times."""
        if not ids:
            return []
        text = self._q.get("episode_versions")
        names = return_columns(text)
        return [dict(zip(names, r, strict=True))
                for r in self._exec(text, {"ids": ids, "userId": user_id})]

    def entities_by_norm(self, user_id: str, norms: list[str]) -> list[Row]:
        if not norms:
            return []
        return self._rows("entities_by_norm", {"userId": user_id, "norms": norms})

    def entity_degrees(self, user_id: str, ids: list[str]) -> dict[str, int]:
        """How many relations each of these entities takes part in."""
        if not ids:
            return {}
        rows = self._exec(self._q.get("entity_degrees"), {"ids": ids, "userId": user_id})
        return {r[0]: int(r[1]) for r in rows}

    def expand(self, user_id: str, entity_ids: list[str], limit: int,
               degrees: dict[str, int] | None = None) -> list[Hit]:
        if not entity_ids:
            return []
        return expand_from(lambda ids: self.entity_degrees(user_id, ids),
                           lambda ids, k: self.adjacent(user_id, ids, k), entity_ids, limit,
                           degrees)

    def adjacent(self, user_id: str, entity_ids: list[str], limit: int) -> list[Row]:
        if not entity_ids:
            return []
        rows = self._exec(self._q.get("adjacent_relations"),
                           {"ids": entity_ids, "userId": user_id, "limit": limit})
        return [{"id": r[0], "subjectId": r[1], "objectId": r[2]} for r in rows]

    def episode_mentions(self, user_id: str, entity_ids: list[str], limit: int) -> list[Hit]:
        if not entity_ids:
            return []
        rows = self._exec(self._q.get("episode_mentions"),
                           {"ids": entity_ids, "userId": user_id, "limit": limit})
        return [Hit(r[0], float(r[1])) for r in rows]

    def episode_speakers(self, user_id: str, limit: int) -> list[Row]:
        """Distinct speakers of the user's episodes with their episode counts."""
        rows = self._exec(self._q.get("episode_speakers"), {"userId": user_id, "limit": limit})
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
        rows = self._exec(self._q.get("page_episodes"), {
            "userId": user_id, "sessionId": session_id, "withForgotten": with_forgotten,
            "offset": offset, "limit": limit})
        return (int(rows[0][0]), list(rows[0][1] or [])) if rows else (0, [])

    def page_entities(self, user_id: str, *, needle: str | None, with_forgotten: bool,
                      offset: int, limit: int) -> tuple[int, list[str]]:
        rows = self._exec(self._q.get("page_entities"), {
            "userId": user_id, "needle": needle, "withForgotten": with_forgotten,
            "offset": offset, "limit": limit})
        return (int(rows[0][0]), list(rows[0][1] or [])) if rows else (0, [])

    def evidence(self, user_id: str, relation_ids: list[str]) -> list[Row]:
        if not relation_ids:
            return []
        rows = self._exec(self._q.get("evidence_of"),
                           {"ids": relation_ids, "userId": user_id})
        return [{"rid": r[0], "id": r[1], "sourceRef": r[2], "occurredAt": r[3]} for r in rows]

    def count(self, label: str, user_id: str) -> tuple[int, int]:
        rows = self._exec(self._q.get("count_nodes", label=label), {"userId": user_id})
        if not rows:
            return 0, 0
        return int(rows[0][0] or 0), int(rows[0][1] or 0)

    def relation_sample(self, user_id: str, limit: int = 200) -> tuple[int, int]:
        """(sampled, sent as relations) of up to ``limit`` of the user's relations."""
        rows = self._exec(self._q.get("relation_sample"), {"userId": user_id, "limit": limit})
        if not rows:
            return 0, 0
        return int(rows[0][0] or 0), int(rows[0][1] or 0)

    def has_nodes(self, label: str, user_id: str) -> bool:
        return bool(self._exec(self._q.get("any_node", label=label), {"userId": user_id}))

    def relation_status_counts(self, user_id: str) -> dict[str, int]:
        rows = self._exec(self._q.get("count_relations_by_status"), {"userId": user_id})
        return {str(r[0]): int(r[1]) for r in rows}

    def export_nodes(self, label: str, user_id: str, skip: int, limit: int) -> list[Row]:
        """The nodes as stored, bad values included (``graphmem check`` reports them)."""
        rows = self._exec(self._q.get("export_nodes", label=label),
                          {"userId": user_id, "skip": skip, "limit": limit})
        return [_props(r[0]) for r in rows]

    def stale_vectors(self, label: str, user_id: str, model: str, limit: int) -> list[Row]:
        text = self._q.get("stale_vectors", label=label)
        names = return_columns(text)
        return [dict(zip(names, r, strict=True)) for r in self._exec(
            text, {"userId": user_id, "model": model, "limit": limit})]

    def count_stale_vectors(self, label: str, user_id: str, model: str) -> tuple[int, int]:
        rows = self._exec(self._q.get("count_stale_vectors", label=label),
                          {"userId": user_id, "model": model})
        return (int(rows[0][0] or 0), int(rows[0][1] or 0)) if rows else (0, 0)

    def event_nodes(self, label: str, user_id: str, since: int) -> list[Row]:
        """The user's ``label`` nodes recorded, expired or forgotten at or after ``since``
        (ms), or carrying a forget or feedback log (``graphmem._events``)."""
        text = self._q.get("event_nodes", label=label)
        names = return_columns(text)
        return [dict(zip(names, r, strict=True))
                for r in self._exec(text, {"userId": user_id, "since": since})]

    def export_edges(self, edge: str, user_id: str,
                     ends: tuple[str, str] | None = None) -> list[Row]:
        """The user's ``edge`` edges between ``ends`` (default: the edge's usual labels)."""
        src, dst = ends or EDGE_ENDS[edge]
        rows = self._exec(self._q.get("export_edges", edge=edge, src=src, dst=dst),
                           {"userId": user_id})
        return [{"src": r[0], "dst": r[1], "props": dict(r[2] or {})} for r in rows]

    # ------------------------------------------------------------ invariant checks
    # (graphmem.check) Each names a user, so a store keeping one graph per user runs it on
    # that user's graph; only ``user_ids`` needs a store-wide look.

    def user_ids(self) -> list[str]:
        """Every user owning a node (a store with one graph for all users)."""
        found: set[str] = set()
        for label in LABELS:
            found.update(str(r[0]) for r in self._exec(
                self._q.get("check_owners", label=label), {}))
        return sorted(found)

    def check_unowned(self, label: str, user_id: str, limit: int) -> list[str]:
        """``label`` nodes without an owner, in the graph holding ``user_id``."""
        rows = self._exec(self._q.get("check_unowned", label=label),
                          {"userId": user_id, "limit": limit})
        return [str(r[0]) for r in rows]

    def check_edges(self, label: str, user_id: str) -> list[Row]:
        """Every edge touching the user's ``label`` nodes, both ends' labels and owners."""
        rows = self._exec(self._q.get("check_edges", label=label), {"userId": user_id})
        keys = ("type", "src", "srcLabels", "srcUser", "dst", "dstLabels", "dstUser", "at",
                "expiredAt")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def check_shared_ids(self, label: str, user_id: str) -> list[Row]:
        """Ids of the user's ``label`` nodes another node also carries, with its owner."""
        rows = self._exec(self._q.get("check_shared_ids", label=label), {"userId": user_id})
        return [{"id": str(r[0]), "owner": r[1]} for r in rows]


@functools.cache
def return_columns(text: str) -> tuple[str, ...]:
    """The column names of a query that ends ``RETURN expr AS name, ...`` (every column
    aliased; a query returning anything else is a programming error)."""
    clause = text.rsplit("RETURN", 1)[1]
    names = tuple(_ALIAS.findall(clause))
    if not names or clause.count(" AS ") != len(names):
        raise ValueError("a row query must name every column it returns with AS")
    return names


_ALIAS = re.compile(r"\bAS\s+([A-Za-z_][A-Za-z0-9_]*)")


def _props(value: Any) -> Row:
    props = dict(value or {})
    props.pop("embedding", None)  # vectors stay in the store
    return props


#: node properties that hold an instant (epoch ms)
INSTANT_PROPS = ("createdAt", "occurredAt", "recordedAt", "validFrom", "validUntil",
                 "expiredAt", "forgottenAt", "lastAccessedAt")


def _readable(row: Row) -> Row:
    """A row whose instants are all integers in range: a value written by hand or by a
    foreign tool (text, a float, out of range) is read as ``from_ms`` reads it (the nearest
    bound, logged), so one bad row never breaks the arithmetic of a whole read."""
    for key in INSTANT_PROPS:
        value = row.get(key)
        if value is not None and not instant_in_range(value):
            row[key] = to_ms(from_ms(value))
    return row
