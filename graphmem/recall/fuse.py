"""Recall's fusion and scoring: one ranking per search (across kinds, with the
named-person bonus), graph hits ranked by the question words their path covers, weighted
fusion of the searches, and each item's final score (context, time, kind, role,
recency, importance, frequency)."""

from __future__ import annotations

import math
import re

from graphmem._passages import NOT_USER_ROLES
from graphmem.model import MemoryKind
from graphmem.question import states_time
from graphmem.recall.analysis import Asked
from graphmem.recall.retrieve import _Candidates
from graphmem.recall_model import (
    KIND_WEIGHT,
    RANK_SHARE,
    RRF_K,
    Z_SCALE,
    RecallItem,
    RecallTuning,
    Scores,
)
from graphmem.store.base import Hit, Row, prefix_term

#: roles whose episodes are not the people's own words (``assistant_weight``)
_NOT_USER = NOT_USER_ROLES


def _rank(c: _Candidates, named: dict[str, bool], t: RecallTuning) -> None:
    """One ranking per search across kinds, with the named-person bonus.

    Ranks are taken over all kinds together: a short list (a user's 50 relations)
    ranked on its own would put its 5th-best item level with the 5th of 5,000 episodes.
    """
    for source in ("vector", "fulltext"):
        lists = [hits for (_, src), hits in c.hits.items() if src == source]
        if t.rank_across_kinds:
            lists = [[h for hits in lists for h in hits]]
        if source == "vector":
            def key(h: Hit) -> float:
                return h.score + (t.speaker_vector_bonus if named.get(h.id) else 0.0)
        else:
            def key(h: Hit) -> float:
                return h.score * (1.0 + (t.speaker_text_factor if named.get(h.id) else 0.0))
        for hits in lists:
            keys = {h.id: key(h) for h in hits}
            for i, z in _standout(keys).items():
                c.standout[i][source] = z
            for rank, hit in enumerate(sorted(hits, key=lambda h: (-keys[h.id], h.id))):
                c.ranks[hit.id][source] = rank


def _rank_graph(c: _Candidates, words: str) -> None:
    """Ranks the relations graph expansion reached by how many of the question's words
    their path covers: a relation of a named entity by its own words, one a hop further
    by its words together with those of the relation that leads to it.

    "In which city is the company Omar works at located?": the path Omar -works at->
    Acme -located in-> Lyon covers "Omar", "works" and "located", and ranks above the
    other relations around Acme or around Omar's home town.
    """
    near = c.hits.get(("Relation", "graph"))
    if not near:
        return
    asked = _stems(words)

    def said(hit: Hit) -> set[str]:
        row = c.rows.get(hit.id) or {}
        return asked & _stems(f"{row.get('statement') or ''} {row.get('predicate') or ''}")

    def ends(hit: Hit) -> set[str]:
        row = c.rows.get(hit.id) or {}
        return {str(row.get(k) or "").casefold() for k in ("subject", "object")} - {""}

    first = [(ends(h), said(h)) for h in near if h.score <= 1.0]
    covered: dict[str, int] = {}
    for hit in near:
        own = said(hit)
        if hit.score <= 1.0:
            covered[hit.id] = len(own)
            # a named entity's own relations are what the other searches find already
            c.cover[hit.id] = 0.0
            continue
        mine = ends(hit)
        # only through a first hop that leaves some asked word open: "user likes
        # chess" reached through "user likes hiking" adds nothing to a question that
        # relation answers whole ("hiking in the Alps")
        covered[hit.id] = max([len(own | words1) for ends1, words1 in first
                               if ends1 & mine and not asked <= words1] or [len(own)])
        c.cover[hit.id] = covered[hit.id] / len(asked) if asked else 0.0
    order = sorted(enumerate(near), key=lambda p: (-covered[p[1].id], p[1].score, p[0]))
    for rank, (_, hit) in enumerate(order):
        c.ranks[hit.id]["graph"] = rank


def _stems(text: str) -> set[str]:
    return {prefix_term(w).rstrip("*").casefold() for w in re.findall(r"[^\W_]+", text)}


def _fused(c: _Candidates, t: RecallTuning) -> dict[str, float]:
    """Every candidate's fused score (``_fuse``), by id."""
    return {i: _fuse(c.ranks[i], c.label_of[i], t, c.cover.get(i, 0.0), c.standout.get(i))
            for i in c.label_of}


def _fuse(ranks: dict[str, int], label: str, t: RecallTuning, cover: float = 0.0,
          standout: dict[str, float] | None = None) -> float:
    """One candidate's fused score: per search, its weight x (reciprocal rank, or with
    ``fusion="score"`` its standout on the scale of a top rank, 1 / (RRF_K + 1), plus
    ``RANK_SHARE`` of its reciprocal rank)."""
    graph = (t.graph_episode_weight if label == "Episode"
             else t.graph_weight + t.graph_cover_weight * cover)
    weight = {"vector": t.vector_weight, "fulltext": t.fulltext_weight, "graph": graph}
    out = 0.0
    for src, rank in ranks.items():
        if t.fusion == "score" and standout is not None and src in standout:
            # the rank share keeps every hit found above zero (a hit below its search's
            # mean still counts a little) and breaks ties
            out += weight.get(src, 0.0) * (standout[src] / (RRF_K + 1)
                                           + RANK_SHARE / (RRF_K + rank + 1))
        else:
            out += weight.get(src, 0.0) / (RRF_K + rank + 1)
    return out


def _standout(scores: dict[str, float]) -> dict[str, float]:
    """Each hit's score in standard deviations above the mean of its search's hits,
    clipped at 0 and divided by ``Z_SCALE``: comparable across searches whose raw scores
    are not (cosines, BM25), and small for a search whose hits all score alike."""
    if not scores:
        return {}
    vals = list(scores.values())
    mean = sum(vals) / len(vals)
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / len(vals))
    if sd <= 0:
        return {i: 1.0 / Z_SCALE for i in scores}
    return {i: max(0.0, (v - mean) / sd) / Z_SCALE for i, v in scores.items()}


def _score(item: RecallItem, row: Row, found: Scores, base: float, inherited: float,
           speaker: bool, reference: float, cover: dict[str, float], a: Asked,
           t: RecallTuning) -> None:
    """Sets ``item``'s score and the search terms of its breakdown.

    ``found``: its raw search scores; ``base``: its fused score; ``inherited``: what it
    inherits from its neighbours; ``speaker``: said by (or about) a person the question
    names; ``reference``: the importance a new memory of its kind starts with;
    ``cover``: the graph hits' share of the question's words covered.
    """
    kind = item.kind
    s = item.scores
    s.vector, s.fulltext, s.graph = found.vector, found.fulltext, found.graph
    s.speaker = 1.0 if speaker else 0.0
    s.context = round(inherited, 6)
    s.fused = round(base + s.context, 6)
    if a.when and kind is MemoryKind.EPISODE and states_time(row.get("content", "")):
        base *= 1.0 + t.time_boost
    score = (base + s.context) * KIND_WEIGHT[kind]
    if kind is MemoryKind.EPISODE and row.get("role") in _NOT_USER:
        score *= t.assistant_weight
    w = t.relation_recency_weight if kind is MemoryKind.RELATION else t.recency_weight
    score *= 1.0 - w + w * s.recency
    # importance now (category, feedback, use, time since last use), relative to
    # what a new memory of its kind starts with
    score *= _weigh(s.importance, t.importance_weight) / _weigh(
        reference, t.importance_weight)
    score *= 1.0 + t.frequency_weight * min(s.frequency, 5.0)
    if kind is MemoryKind.RELATION and cover and item.id not in cover:
        # the question names an entity; this relation is not near it
        score *= 1.0 - t.graph_prior
    if a.window is not None:
        score *= 1.0 + s.temporal
    item.scores = s
    item.score = round(score * 1000, 6)


def _weigh(importance: float, w: float) -> float:
    """x (1 - w + 2 w importance): .5 is neutral, the factor spans 1 - w .. 1 + w."""
    return 1.0 - w + 2 * w * importance
