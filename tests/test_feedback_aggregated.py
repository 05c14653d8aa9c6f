"""addFeedback on both stores: signals on a memory are weighed together (one moves little,
agreeing ones add up to a bound, opposite ones take it back), corrections mark for review,
every adjustment is audited, and a batch of targets is all or nothing."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.embed import HashingEmbedder
from graphmem.errors import InvalidInputError, NotFoundError
from graphmem.inputs import EpisodeIn, RelationIn
from graphmem.service import MemoryService

from .api_support import serve_api
from .conftest import DIM, FakeClock, make_settings
from .test_lifecycle import digest

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


def fact(service: MemoryService, user: str, obj: str, confidence: float = 0.6) -> Any:
    return service.add_relation(RelationIn(user_id=user, subject="user", predicate="uses",
                                           object=obj, category="fact", valid_from=T0,
                                           confidence=confidence))


def want(evidence: float) -> float:
    """What aggregated feedback adds for this much evidence (step 0.1, 3 steps at most)."""
    return 0.3 * math.tanh(evidence / 3.0)


def test_signals_add_up_gradually_and_take_each_other_back(
        service: MemoryService, clock: FakeClock, user: str) -> None:
    rel = fact(service, user, "Vim")  # importance .8 (fact), confidence .6
    add = service.lifecycle.add_feedback
    (entry, life), = add(user, [rel.id], "POSITIVE", note="right", by="agent-7")
    assert entry.importance_after - entry.importance_before == pytest.approx(want(1), abs=1e-6)
    assert entry.confidence_after == pytest.approx(0.6 + want(1), abs=1e-6)
    assert want(1) < 0.1  # one signal alone moves little
    moves = []
    for _ in range(5):
        clock.tick(60)
        (entry, life), = add(user, [rel.id], "POSITIVE", confidence=1.0)
        moves.append(entry.confidence_after - entry.confidence_before)
    assert all(a > b > 0 for a, b in zip(moves, moves[1:], strict=False))  # each adds less
    assert life.confidence == pytest.approx(0.6 + want(6), abs=1e-5)
    assert life.confidence < 0.6 + 0.3  # bounded
    # a low-confidence signal weighs less than a sure one
    clock.tick(60)
    (weak, _), = add(user, [rel.id], "NEGATIVE", confidence=0.2)
    clock.tick(60)
    (sure, life), = add(user, [rel.id], "NEGATIVE", confidence=1.0)
    assert 0 > weak.confidence_after - weak.confidence_before > \
        sure.confidence_after - sure.confidence_before
    # opposite signals bring the values back to what the net evidence says
    assert life.confidence == pytest.approx(0.6 + want(6 - 1.2), abs=1e-5)
    for _ in range(4):
        (_, life), = add(user, [rel.id], "NEGATIVE", confidence=1.0)
    assert life.confidence == pytest.approx(0.6 + want(6 - 1.2 - 4), abs=1e-5)
    # the audit trail: who, when, with what weight, from what to what
    log = service.lifecycle.importance(user, rel.id).feedback
    assert [(e.signal, e.weight, e.by, e.note) for e in log[:2]] == [
        ("POSITIVE", 1.0, "agent-7", "right"), ("POSITIVE", 1.0, None, None)]
    assert log[-1].confidence_after == life.confidence and len(log) == 12
    assert log[1].at > log[0].at


def test_a_correction_marks_for_review_at_once(service: MemoryService, user: str) -> None:
    rel = fact(service, user, "Emacs", confidence=0.9)
    ep = service.add_episode(EpisodeIn(user_id=user, occurred_at=T0,
                                       content="I switched editors.")).episode
    done = service.lifecycle.add_feedback(user, [rel.id, ep.id], "CORRECTION",
                                          note="it is Helix now")
    (rel_entry, rel_life), (ep_entry, ep_life) = done
    assert rel_life.needs_review and rel_entry.needs_review
    assert rel_life.confidence == pytest.approx(0.9 - want(1), abs=1e-6)
    assert ep_entry.confidence_before is None and ep_life.confidence is None
    assert ep_entry.importance_after < ep_entry.importance_before
    # marked for review, never hidden
    assert [r.id for r in service.relations(user, predicate="uses")] == [rel.id]


def test_a_batch_is_all_or_nothing_and_bad_input_changes_nothing(
        service: MemoryService, store: Any, user: str) -> None:
    rel = fact(service, user, "Vim")
    other = f"{user}-other"
    theirs = fact(service, other, "Nano")
    before, theirs_before = digest(store, user), digest(store, other)
    add = service.lifecycle.add_feedback
    with pytest.raises(NotFoundError):
        add(user, [rel.id, "rel_doesnotexist"], "POSITIVE")
    with pytest.raises(NotFoundError):  # another user's id is unknown here
        add(user, [rel.id, theirs.id], "POSITIVE")
    for bad in ({"confidence": 1.5}, {"confidence": float("nan")}, {"confidence": -0.1}):
        with pytest.raises(InvalidInputError):
            add(user, [rel.id], "POSITIVE", **bad)
    with pytest.raises(InvalidInputError):
        add(user, [rel.id], "HELPFUL")  # the single-step signals go through feedback
    with pytest.raises(InvalidInputError):
        add(user, [], "POSITIVE")
    with pytest.raises(InvalidInputError):
        add(user, [rel.id] * 101, "POSITIVE")
    with pytest.raises(InvalidInputError):
        add(user, [rel.subject_id], "POSITIVE")  # an entity takes no feedback
    with pytest.raises(InvalidInputError):
        add(user, [rel.id], "POSITIVE", note="bad \x00 note")
    assert digest(store, user) == before and digest(store, other) == theirs_before


ADD = """mutation($u: ID!, $ids: [ID!]!, $s: FeedbackSignal!, $c: Float!, $by: String) {
  addFeedback(userId: $u, targetIds: $ids, signal: $s, confidence: $c, by: $by) {
    applied { signal weight by confidenceBefore confidenceAfter needsReview }
    memory { id confidence needsReview feedback { signal weight by } } } }"""


def test_add_feedback_over_graphql_and_not_on_another_users_memory(
        store: Any, user: str) -> None:
    other = f"{user}-b"
    settings = make_settings(api_keys={"key-a": [user], "key-b": [other]})
    service = MemoryService(settings, store, HashingEmbedder(DIM), clock=FakeClock())
    mine, theirs = fact(service, user, "Vim"), fact(service, other, "Nano")
    theirs_before = digest(store, other)
    with serve_api(service, settings, {"Authorization": "Bearer key-a"}) as api:
        out = api.data(ADD, {"u": user, "ids": [mine.id], "s": "POSITIVE", "c": 0.5,
                             "by": "reviewer"})["addFeedback"]
        assert out[0]["applied"]["weight"] == 0.5 and out[0]["applied"]["by"] == "reviewer"
        assert out[0]["memory"]["feedback"] == [{"signal": "POSITIVE", "weight": 0.5,
                                                 "by": "reviewer"}]
        err = api.errors(ADD, {"u": other, "ids": [theirs.id], "s": "CORRECTION", "c": 1.0})
        assert err[0]["extensions"]["code"] == "FORBIDDEN"
        err = api.errors(ADD, {"u": user, "ids": [theirs.id], "s": "CORRECTION", "c": 1.0})
        assert err[0]["extensions"]["code"] == "NOT_FOUND"
        err = api.errors(ADD, {"u": user, "ids": [mine.id], "s": "POSITIVE", "c": 2.0})
        assert err[0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert digest(store, other) == theirs_before
