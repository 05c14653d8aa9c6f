"""Recall's fusion of its searches and its time window, stage by stage and through the
service: a search's clear best hit is not outvoted by hits that are mediocre in both
searches, and a question about a period does not penalise what was said before it."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from graphmem.inputs import EpisodeIn, RecallIn
from graphmem.model import MemoryKind
from graphmem.recall import _fuse, _standout
from graphmem.recall_model import ABLATIONS, DEFAULT_TUNING, RecallTuning
from graphmem.service import MemoryService


def _fused(tuning: RecallTuning, vector: dict[str, float],
           fulltext: dict[str, float]) -> list[str]:
    """Ids ranked by fused score, from raw scores of two searches."""
    ranks: dict[str, dict[str, int]] = {}
    standout: dict[str, dict[str, float]] = {}
    for source, scores in (("vector", vector), ("fulltext", fulltext)):
        order = sorted(scores, key=lambda i: (-scores[i], i))
        for rank, i in enumerate(order):
            ranks.setdefault(i, {})[source] = rank
        for i, z in _standout(scores).items():
            standout.setdefault(i, {})[source] = z
    fused = {i: _fuse(ranks[i], "Episode", tuning, 0.0, standout.get(i)) for i in ranks}
    return sorted(fused, key=lambda i: (-fused[i], i))


# The vector search has one clear answer ("best": cosine .80 among a flat crowd near .30);
# the full-text search matches a common word in many turns, "best" not among them; the
# crowd's turns appear in both lists at middling ranks.
VECTOR = {"best": 0.80, **{f"c{n}": 0.32 - 0.005 * n for n in range(20)}}
FULLTEXT = {**{f"c{n}": 3.0 - 0.05 * n for n in range(20)}, "x": 2.0}


def test_a_search_s_clear_best_hit_stays_first_after_fusion() -> None:
    assert _fused(DEFAULT_TUNING, VECTOR, FULLTEXT)[0] == "best"


def test_rank_fusion_lets_middling_double_hits_outvote_it() -> None:
    # what the score fusion fixes: reciprocal ranks ignore how far ahead "best" is
    ranked = _fused(ABLATIONS["-score fusion"], VECTOR, FULLTEXT)
    assert ranked.index("best") >= 10


def test_standout_is_small_for_a_flat_search_and_every_hit_keeps_a_score() -> None:
    flat = _standout({f"h{n}": 0.70 + 0.001 * n for n in range(20)})
    peaked = _standout({"top": 20.0, **{f"h{n}": 1.0 + 0.01 * n for n in range(19)}})
    assert max(flat.values()) < 0.6 < peaked["top"]
    ranks = {"vector": 19}
    assert _fuse(ranks, "Episode", DEFAULT_TUNING, 0.0, {"vector": 0.0}) > 0


def ep(user: str, text: str, when: str, ref: str) -> EpisodeIn:
    return EpisodeIn(user_id=user, occurred_at=when, content=text, source_ref=ref)


def test_a_window_question_keeps_what_was_said_before_the_window(
        service: MemoryService, user: str) -> None:
    service.add_episodes([
        ep(user, "I live in Toronto with my partner.", "2024-01-20T10:00:00Z", "before"),
        ep(user, "We moved, I live in Melbourne now.", "2024-06-02T10:00:00Z", "after"),
    ])
    q = RecallIn(user, "Which city did I live in in March 2024?",
                 reference_time=datetime(2024, 7, 1, tzinfo=UTC), limit=10,
                 kinds=[MemoryKind.EPISODE])

    def temporal(tuning: RecallTuning) -> dict[str | None, float]:
        service._recaller.tuning = tuning
        try:
            res = service.recall(q)
        finally:
            service._recaller.tuning = DEFAULT_TUNING
        assert res.temporal_window is not None
        return {it.sources[0].source_ref: it.scores.temporal for it in res.items}

    # the time terms alone (the latest message on the facet before the window counts as
    # inside it: tests/test_recall_facet_then.py)
    alone = replace(DEFAULT_TUNING, facet_then=False)
    now = temporal(alone)
    assert now["before"] == 0.0  # may still hold in March: not penalised
    assert now["after"] == DEFAULT_TUNING.window_outside  # said months after: penalised
    old = temporal(replace(alone, window_before=DEFAULT_TUNING.window_outside))
    assert old["before"] == DEFAULT_TUNING.window_outside
    # "I live in Toronto", the latest on where the user lives before March: held then
    assert temporal(DEFAULT_TUNING)["before"] == DEFAULT_TUNING.window_inside
