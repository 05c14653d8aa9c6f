"""The one store interface every backend implements, and the unit of work it applies.

The service computes *what* to write (a ``WritePlan``) and the store writes it in one
transaction. Reads return plain rows: dicts of stored properties (camelCase keys, times
as epoch milliseconds, no embeddings).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

Row = dict[str, Any]

# Which labels each edge type joins: the link queries are chosen from this table, so an
# edge can never join the wrong kinds of node.
EDGE_ENDS: dict[str, tuple[str, str]] = {
    "SUBJECT_OF": ("Entity", "Relation"),
    "OBJECT": ("Relation", "Entity"),
    "EVIDENCED_BY": ("Relation", "Episode"),
    "MENTIONS": ("Episode", "Entity"),
    "SUPERSEDES": ("Relation", "Relation"),
    "DISPUTED": ("Relation", "Relation"),
    "DERIVED_FROM": ("Abstraction", "Relation"),
}

#: Abstraction versions are chained by the same edge types as relations, between
#: abstractions (``WritePlan.link_versions``).
VERSION_EDGES = ("SUPERSEDES", "DISPUTED")
#: ... and so are episodes that restate or contradict an earlier one
#: (``WritePlan.link_episodes``, ``graphmem._episode_versions``).
EPISODE_EDGES = VERSION_EDGES


@dataclass(slots=True)
class NodeWrite:
    id: str
    props: Row
    embedding: list[float]


@dataclass(slots=True)
class WritePlan:
    """Everything one episode, batch or relation write changes, applied atomically."""

    user_id: str
    at: int  # system time of the write, epoch ms
    # The user's write version the plan was decided on (``Store.write_version``): the store
    # refuses the plan with ``ConflictError`` when another write landed since. None: no check.
    base_version: int | None = None
    episodes: list[NodeWrite] = field(default_factory=list)
    entities: list[NodeWrite] = field(default_factory=list)
    relations: list[NodeWrite] = field(default_factory=list)
    abstractions: list[NodeWrite] = field(default_factory=list)
    # passages of long episodes (``graphmem._passages``), written with their episodes
    passages: list[NodeWrite] = field(default_factory=list)
    # label -> [{id, props}] partial updates
    updates: dict[str, list[Row]] = field(default_factory=dict)
    # edge type -> [{src, dst, props}]
    links: dict[str, list[Row]] = field(default_factory=dict)
    # edge type -> [{src, dst}] to close in system time
    expire: dict[str, list[Row]] = field(default_factory=dict)
    # edge type (VERSION_EDGES) -> [{src, dst, props}] between abstraction versions
    version_links: dict[str, list[Row]] = field(default_factory=dict)
    # label -> [{id, embedding, model}]: new vectors of stored nodes (``graphmem reembed``)
    vectors: dict[str, list[Row]] = field(default_factory=dict)
    # edge type (EPISODE_EDGES) -> [{src, dst, props}] between episodes
    episode_links: dict[str, list[Row]] = field(default_factory=dict)

    def update(self, label: str, node_id: str, props: Row) -> None:
        self.updates.setdefault(label, []).append({"id": node_id, "props": props})

    def link(self, edge: str, src: str, dst: str, props: Row | None = None) -> None:
        self.links.setdefault(edge, []).append({"src": src, "dst": dst, "props": props or {}})

    def link_versions(self, edge: str, src: str, dst: str, props: Row | None = None) -> None:
        """An edge between two abstraction versions (``SUPERSEDES`` / ``DISPUTED``)."""
        if edge not in VERSION_EDGES:
            raise ValueError(f"not an abstraction version edge: {edge}")
        self.version_links.setdefault(edge, []).append(
            {"src": src, "dst": dst, "props": props or {}})

    def link_episodes(self, edge: str, src: str, dst: str, props: Row | None = None) -> None:
        """An edge from a later episode to an earlier one it restates (``SUPERSEDES``) or
        contradicts (``DISPUTED``)."""
        if edge not in EPISODE_EDGES:
            raise ValueError(f"not an episode version edge: {edge}")
        self.episode_links.setdefault(edge, []).append(
            {"src": src, "dst": dst, "props": props or {}})

    def set_vector(self, label: str, node_id: str, embedding: list[float], model: str) -> None:
        """A stored node's vector made again, by the model ``model``."""
        self.vectors.setdefault(label, []).append(
            {"id": node_id, "embedding": embedding, "model": model})

    def unlink(self, edge: str, src: str, dst: str) -> None:
        self.expire.setdefault(edge, []).append({"src": src, "dst": dst})

    def is_empty(self) -> bool:
        return not (self.episodes or self.entities or self.relations or self.abstractions
                    or self.passages or self.updates or self.links or self.expire
                    or self.version_links or self.episode_links or self.vectors)


@dataclass(frozen=True, slots=True)
class RelationPageQuery:
    """Which relations a listing shows and in what order: visible at ``as_of`` as believed
    at ``known_at`` (epoch ms), or with ``history`` every version recorded by ``known_at``;
    ordered by (validFrom, recordedAt, id), newest first unless ``newest_first`` is False;
    only those after ``after`` (the last row of the previous page), at most ``limit``."""

    as_of: int | None
    known_at: int
    history: bool = False
    newest_first: bool = True
    after: tuple[int, int, str] | None = None
    limit: int = 100

    def params(self) -> Row:
        after = self.after or (None, None, None)
        return {"asOf": self.as_of, "knownAt": self.known_at, "history": self.history,
                "afterValidFrom": after[0], "afterRecordedAt": after[1], "afterId": after[2],
                "limit": self.limit}

    def slots(self) -> dict[str, str]:
        return {"dir": "DESC", "cmp": "<"} if self.newest_first else {"dir": "ASC", "cmp": ">"}


@dataclass(frozen=True, slots=True)
class Hit:
    id: str
    score: float


# Entities in more relations than this are hubs (the user themself, "project"): expanding
# through them reaches everything and says nothing, so graph expansion skips them.
HUB_DEGREE = 64


def expand_from(degrees: Callable[[list[str]], dict[str, int]],
                adjacent: Callable[[list[str], int], list[Row]],
                entity_ids: list[str], limit: int,
                known: dict[str, int] | None = None) -> list[Hit]:
    """Relations one and two relation-hops from the seed entities, hubs left out.

    ``entity_ids`` come best first. Scores are path lengths (1 for a relation of a seed, 3
    for one of a neighbour) so the caller can rank by closeness; within a hop, relations
    reached from a better seed come first. Two bounded steps instead of one
    variable-length match, whose paths through a hub grow with the whole graph. ``known``:
    the seeds' degrees if the caller has read them already.
    """
    missing = [i for i in entity_ids if known is None or i not in known]
    deg = {**(known or {}), **(degrees(missing) if missing else {})}
    seed_rank = {i: r for r, i in enumerate(entity_ids) if deg.get(i, 0) <= HUB_DEGREE}
    hits: dict[str, tuple[float, int]] = {}  # relation id -> (hops, rank of its seed)
    first = adjacent(list(seed_rank), limit) if seed_rank else []
    via: dict[str, int] = {}  # neighbour entity -> rank of the best seed it hangs off
    for row in first:
        ends = [e for e in (row.get("subjectId"), row.get("objectId")) if e]
        rank = min((seed_rank[e] for e in ends if e in seed_rank), default=len(entity_ids))
        hits.setdefault(row["id"], (1.0, rank))
        for e in ends:
            if e not in entity_ids:
                via[e] = min(via.get(e, rank), rank)
    if via and len(hits) < limit:
        deg2 = degrees(sorted(via))
        seeds2 = [i for i in sorted(via, key=lambda e: (via[e], e))
                  if deg2.get(i, 0) <= HUB_DEGREE]
        # Fetched with headroom, then cut by seed rank: the query's own LIMIT cannot tell
        # a relation of the best seed's neighbour from one of the eighth's.
        for row in adjacent(seeds2, 4 * limit) if seeds2 else []:
            ends = [e for e in (row.get("subjectId"), row.get("objectId")) if e in via]
            rank = min((via[e] for e in ends), default=len(entity_ids))
            hits[row["id"]] = min(hits.get(row["id"], (3.0, rank)), (3.0, rank))
    ordered = sorted(hits.items(), key=lambda kv: (kv[1], kv[0]))
    return [Hit(i, h[0]) for i, h in ordered][:limit]


_SUFFIXES = ("ing", "ed", "es", "s")


def prefix_term(word: str) -> str:
    """An English word as a prefix on its rough stem ("works" -> "work*"), else the word.

    Recall compares question and memory words by these stems (the full-text stage has its
    own analysis: ``_text_terms``). Words shorter than four letters and anything not plain
    ASCII letters are kept as they are.
    """
    if len(word) < 4 or not (word.isascii() and word.isalpha()):
        return word
    stem = word.lower()
    for suffix in _SUFFIXES:
        if stem.endswith(suffix) and len(stem) - len(suffix) >= 4 \
                and not (suffix == "s" and stem[-2] in "sui"):  # press, status, analysis
            stem = stem[: -len(suffix)]
            break
    return stem + "*"


class Store(Protocol):
    """A graph store. Every read and write is scoped to one ``user_id``."""

    name: str

    def open(self) -> None:
        """Connect and bootstrap the schema (idempotent)."""

    def close(self) -> None:
        """Flush and close; data written before survives a restart."""

    def ensure_schema(self) -> None:
        """Create constraints and indexes; idempotent (``open`` runs it)."""

    def apply(self, plan: WritePlan) -> None:
        """Write the whole plan in one transaction: all of it or nothing. Raises
        ``ConflictError`` (writing nothing) when ``plan.base_version`` is set and another
        write of the user landed since it was read."""

    def write_version(self, user_id: str) -> int:
        """How many plans of the user have been applied (read before deciding a plan)."""

    def nodes(self, label: str, user_id: str, ids: list[str]) -> list[Row]: ...

    def recall_rows(self, label: str, user_id: str, ids: list[str]) -> list[Row]:
        """What recall ranks and shows of these nodes: a subset of ``nodes``' fields."""

    def relation_group(self, user_id: str, group_key: str) -> list[Row]: ...

    def relations(self, user_id: str, *, subject: str | None, predicate: str | None,
                  obj: str | None, page: RelationPageQuery, scope: str | None = None,
                  session_id: str | None = None) -> list[Row]:
        """One page of the user's relations, filtered and ordered in the query; under a
        scope, that scope's and the user level's; under a session, that session's."""

    def entity_relations(self, user_id: str, entity_id: str,
                         page: RelationPageQuery) -> list[Row]:
        """One page of the relations an entity is the subject or object of."""

    def chain_edges(self, user_id: str, ids: list[str]) -> list[Row]: ...

    def foreign_ids(self, label: str, user_id: str, ids: list[str]) -> list[str]:
        """Which of ``ids`` name a ``label`` node that is not ``user_id``'s."""

    def episode_versions(self, user_id: str, ids: list[str]) -> list[Row]:
        """SUPERSEDES / DISPUTED edges between episodes touching ``ids`` (type, src, dst,
        at, reason, score, srcAt, dstAt, srcForgotten, dstForgotten)."""

    def entities_by_norm(self, user_id: str, norms: list[str]) -> list[Row]: ...

    def vector_search(self, label: str, user_id: str, vector: list[float],
                      k: int) -> list[Hit]: ...

    def fulltext_search(self, label: str, user_id: str, text: str, k: int) -> list[Hit]: ...

    def entity_degrees(self, user_id: str, ids: list[str]) -> dict[str, int]:
        """How many relations each of these entities takes part in."""

    def expand(self, user_id: str, entity_ids: list[str], limit: int,
               degrees: dict[str, int] | None = None) -> list[Hit]:
        """Relations near the entities (``expand_from``); ``degrees``: theirs, if known."""

    def adjacent(self, user_id: str, entity_ids: list[str], limit: int) -> list[Row]:
        """Relations (id, subjectId, objectId) whose subject or object is a given entity."""

    def episode_mentions(self, user_id: str, entity_ids: list[str], limit: int) -> list[Hit]: ...

    def episode_speakers(self, user_id: str, limit: int) -> list[Row]:
        """Distinct speakers of the user's episodes with their episode counts."""

    def session_context(self, user_id: str, ids: list[str], span_ms: int,
                        limit: int) -> list[Row]:
        """Episodes of the same sessions as ``ids``, within ``span_ms`` of them."""

    def evidence(self, user_id: str, relation_ids: list[str]) -> list[Row]: ...

    def page_episodes(self, user_id: str, *, session_id: str | None, with_forgotten: bool,
                      offset: int, limit: int) -> tuple[int, list[str]]:
        """(total, ids of one page) of a user's episodes in event-time order."""

    def page_entities(self, user_id: str, *, needle: str | None, with_forgotten: bool,
                      offset: int, limit: int) -> tuple[int, list[str]]:
        """(total, ids of one page) of a user's entities matching ``needle``."""

    def count(self, label: str, user_id: str) -> tuple[int, int]: ...

    def relation_sample(self, user_id: str, limit: int = 200) -> tuple[int, int]:
        """How many of up to ``limit`` of the user's relations (any, unordered) were
        sampled, and how many of them no episode evidences."""

    def has_nodes(self, label: str, user_id: str) -> bool:
        """Whether the user has any ``label`` node, forgotten ones included (cheap: the
        first node found answers, where ``count`` reads them all)."""

    def relation_status_counts(self, user_id: str) -> dict[str, int]: ...

    def bump_access(self, label: str, user_id: str, rows: list[Row]) -> None: ...

    def stale_vectors(self, label: str, user_id: str, model: str, limit: int) -> list[Row]:
        """Up to ``limit`` of the user's ``label`` nodes whose vector is not of ``model``
        (id, embeddingModel and the fields their text is made from), by id."""

    def count_stale_vectors(self, label: str, user_id: str, model: str) -> tuple[int, int]:
        """(nodes whose vector is not of ``model``, all nodes) of the user's ``label``."""

    def vector_index_dim(self, user_id: str, label: str) -> int | None:
        """The length of the vectors the index searched for this user's ``label`` nodes
        takes (None: no index or no vector yet)."""

    def rebuild_vector_index(self, user_id: str, label: str, dim: int) -> None:
        """Make that index anew for vectors of length ``dim``; nodes whose vectors have
        another length are left out of it until written again."""

    def vector_index_outdated(self, user_id: str, label: str) -> bool:
        """Was that index made with older options than the store makes now (a smaller
        graph degree or search breadth)? ``rebuild_vector_index`` makes it with the new."""

    def export_nodes(self, label: str, user_id: str, skip: int, limit: int) -> list[Row]: ...

    def export_edges(self, edge: str, user_id: str,
                     ends: tuple[str, str] | None = None) -> list[Row]: ...

    def event_nodes(self, label: str, user_id: str, since: int) -> list[Row]:
        """Nodes with a change to report at or after ``since`` (``graphmem._events``)."""
