"""Recall's candidates: per kind, the store's vector and full-text searches, then graph
expansion from the entities the question names best; and the rows ranking reads."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from graphmem._passages import Span, with_passages
from graphmem.inputs import RecallIn
from graphmem.model import MemoryKind
from graphmem.recall.analysis import Asked
from graphmem.recall_model import LABEL, RecallTuning, Scores
from graphmem.store.base import HUB_DEGREE, Hit, Row, Store
from graphmem.store.queries import PASSAGE


@dataclass(slots=True)
class _Candidates:
    """What the searches found: ranks per source, raw scores, labels and loaded rows."""

    ranks: dict[str, dict[str, int]] = field(default_factory=lambda: defaultdict(dict))
    raw: dict[str, Scores] = field(default_factory=lambda: defaultdict(Scores))
    label_of: dict[str, str] = field(default_factory=dict)
    rows: dict[str, Row] = field(default_factory=dict)
    hits: dict[tuple[str, str], list[Hit]] = field(default_factory=dict)  # (label, source)
    degrees: dict[str, int] = field(default_factory=dict)  # named entities' relation counts
    cover: dict[str, float] = field(default_factory=dict)  # graph hits: share of words covered
    # per search: how far each hit stands out from that search's hits (see fuse._standout)
    standout: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(dict))
    passages: dict[str, Span] = field(default_factory=dict)  # episode -> its best passage

    def note(self, label: str, hit: Hit, rank: int, source: str) -> None:
        self.label_of.setdefault(hit.id, label)
        if source not in self.ranks[hit.id]:
            self.ranks[hit.id][source] = rank
            setattr(self.raw[hit.id], source, round(float(hit.score), 6))


def _gather(store: Store, q: RecallIn, a: Asked, vector: list[float],
            t: RecallTuning) -> _Candidates:
    """Every search's hits for the question (``vector``: its search text embedded)."""
    c = _Candidates()
    kinds, words, cand = a.kinds, a.looked_for, a.cand
    # Entities first: the names they match tell which words are hubs' names.
    for label in sorted({LABEL[k] for k in kinds} | {"Entity"},
                        key=lambda lb: (lb != "Entity", lb)):
        hits = store.vector_search(label, q.user_id, vector, cand)
        if label == "Episode":  # a long episode also scores by its best passage
            hits, c.passages = with_passages(
                hits, store.vector_search(PASSAGE, q.user_id, vector, cand), cand)
        c.hits[(label, "vector")] = hits
        for rank, hit in enumerate(hits):
            c.note(label, hit, rank, "vector")
        hits = store.fulltext_search(label, q.user_id, words, cand)
        c.hits[(label, "fulltext")] = hits
        for rank, hit in enumerate(hits):
            c.note(label, hit, rank, "fulltext")
        if label == "Entity" and t.skip_hub_names:
            words = _without_hub_names(store, q.user_id, hits[:8], words, c.degrees)

    # Graph expansion from the entities the question names best (full-text hits on
    # names: "Omar Okafor" over the other Omars when the question says both words).
    if q.hops > 0:
        named = c.hits.get(("Entity", "fulltext"), [])[:8]
        floor = named[0].score * t.graph_seed_ratio if named else 0.0
        seeds = [h.id for h in named if h.score >= floor]
        if MemoryKind.RELATION in kinds:
            near = [h for h in store.expand(q.user_id, seeds, cand, c.degrees)
                    if h.score <= 2 * q.hops - 1]
            c.hits[("Relation", "graph")] = near
            for rank, hit in enumerate(near):
                c.note("Relation", Hit(hit.id, 1.0 / hit.score), rank, "graph")
        if MemoryKind.EPISODE in kinds and t.graph_episode_weight > 0:
            for rank, hit in enumerate(store.episode_mentions(q.user_id, seeds, cand)):
                c.note("Episode", hit, rank, "graph")
    return c


def _without_hub_names(store: Store, user_id: str, entity_hits: list[Hit], words: str,
                       degrees: dict[str, int]) -> str:
    """``words`` without the names of hub entities among ``entity_hits``.

    A hub (the user themself, in thousands of relations) is named in so many memories
    that its name ranks nothing and costs a full-text scan of all of them; the vector
    search still reads the whole question. The degrees read are kept in ``degrees``
    for the graph expansion from the same entities.
    """
    if not entity_hits:
        return words
    degrees.update(store.entity_degrees(user_id, [h.id for h in entity_hits]))
    hubs = [i for i, d in degrees.items() if d > HUB_DEGREE]
    if not hubs:
        return words
    names = {w.casefold() for row in store.recall_rows("Entity", user_id, hubs)
             for w in re.findall(r"\w+", str(row.get("name") or ""))}
    return " ".join(w for w in words.split() if w.casefold() not in names)


def _load(store: Store, user_id: str, label_of: dict[str, str]) -> dict[str, Row]:
    """The rows of the candidates, with the fields ranking reads, by id."""
    by_label: dict[str, list[str]] = defaultdict(list)
    for i, label in label_of.items():
        by_label[label].append(i)
    rows: dict[str, Row] = {}
    for label, ids in by_label.items():
        for row in store.recall_rows(label, user_id, ids):
            rows[row["id"]] = row
    return rows
