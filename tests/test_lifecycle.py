"""The memory lifecycle on both stores (seed 002's acceptance table): importance by
category falls with time without access, recalled memories strengthen, feedback moves
values gradually and is audited, gc's dry run changes nothing, forgetting is restorable,
and the health check sums it up."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pydantic
import pytest

from graphmem.embed import HashingEmbedder
from graphmem.errors import InvalidInputError, NotFoundError
from graphmem.inputs import EpisodeIn, RecallIn, RelationIn
from graphmem.model import MemoryKind
from graphmem.service import MemoryService
from graphmem.settings import Settings
from graphmem.store.base import EDGE_ENDS

from .api_support import serve_api
from .conftest import DIM, FakeClock, make_settings
from .test_check import raw

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
DAY = 86_400


def relate(service: MemoryService, user: str, obj: str, category: str,
           predicate: str = "likes", **kw: Any) -> Any:
    return service.add_relation(RelationIn(user_id=user, subject="user", predicate=predicate,
                                           object=obj, category=category, valid_from=T0,
                                           **kw))


def digest(store: Any, user: str) -> str:
    """Everything stored for the user: every node (access counts included) and edge."""
    parts: list[Any] = []
    for label in ("Episode", "Entity", "Relation", "Abstraction"):
        parts.append(store.export_nodes(label, user, 0, 10_000))
    for edge in sorted(EDGE_ENDS):
        parts.append(sorted(store.export_edges(edge, user), key=json.dumps))
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def test_importance_by_category_falls_with_time_without_access(
        service: MemoryService, clock: FakeClock, user: str) -> None:
    pref = relate(service, user, "Neovim", "preference:editor", predicate="prefers",
                  exclusive=True)
    lesson = relate(service, user, "Docker needs a proxy", "lesson", predicate="learned")
    fact = relate(service, user, "Berlin", "identity", predicate="lives_in")
    goal = relate(service, user, "a marathon", "plan", predicate="plans_to")
    ep = service.add_episode(EpisodeIn(user_id=user, occurred_at=T0,
                                       content="We talked about the weather.")).episode
    life = service.lifecycle.importance
    starts = {m.id: life(user, m.id).importance for m in (pref, lesson, fact, goal, ep)}
    assert [starts[m.id].base for m in (pref, lesson, fact, goal, ep)] == \
        [0.9, 0.85, 0.8, 0.7, 0.4]
    assert all(i.decay == 1.0 and i.effective == i.base for i in starts.values())
    assert service.relation(user, pref.id).importance == 0.9  # stored at write time
    previous = {i: s.effective for i, s in starts.items()}
    for days in (15, 30, 60):
        clock.now = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=days)
        for m in (pref, lesson, fact, goal, ep):
            now = life(user, m.id).importance
            assert now.effective < previous[m.id]  # falls with every day without use
            assert now.decay == pytest.approx(0.5 ** (days / 30), abs=1e-6)
            assert now.effective == pytest.approx(starts[m.id].base * now.decay, abs=1e-6)
            previous[m.id] = now.effective
    assert previous[pref.id] > previous[fact.id] > previous[ep.id]  # category still counts


def test_a_json_setting_changes_the_categories(store: Any, clock: FakeClock,
                                               user: str) -> None:
    settings = make_settings(importance_by_category={"tool": 0.3, "preference": 0.95},
                             importance_half_life_days=10)
    service = MemoryService(settings, store, HashingEmbedder(DIM), clock=clock)
    tool = relate(service, user, "Git", "tool:vcs", predicate="uses", exclusive=True)
    pref = relate(service, user, "tea", "preference")
    assert service.lifecycle.importance(user, tool.id).importance.base == 0.3
    assert service.lifecycle.importance(user, pref.id).importance.base == 0.95
    clock.tick(10 * DAY)
    assert service.lifecycle.importance(user, tool.id).importance.decay == 0.5


HALF_LIFE = """query($u: ID!, $id: ID!) { importance(userId: $u, id: $id) {
  category decay halfLifeDays effective } }"""


def test_categories_can_have_half_lives_of_their_own(store: Any, clock: FakeClock,
                                                     user: str) -> None:
    settings = make_settings(
        importance_half_life_by_category={"Preference": 90, "context": 14, "plan:trip": 7})
    service = MemoryService(settings, store, HashingEmbedder(DIM), clock=clock)
    pref = relate(service, user, "Neovim", "preference:editor", predicate="prefers",
                  exclusive=True)
    taste = relate(service, user, "spicy food", "taste")  # class preference
    fact = relate(service, user, "Berlin", "identity", predicate="lives_in")  # no override
    trip = relate(service, user, "Lisbon", "plan:trip", predicate="plans_to")  # itself
    goal = relate(service, user, "a marathon", "plan:sport", predicate="plans_to")
    ep = service.add_episode(EpisodeIn(user_id=user, occurred_at=T0,
                                       content="We talked about the weather.")).episode
    life = service.lifecycle.importance
    days = 30
    clock.tick(days * DAY)
    want = {pref.id: 90, taste.id: 90, fact.id: 30, trip.id: 7, goal.id: 30, ep.id: 14}
    now = {i: life(user, i).importance for i in want}
    for i, half_life in want.items():
        assert now[i].half_life_days == half_life
        assert now[i].decay == pytest.approx(0.5 ** (days / half_life), abs=1e-6)
    # after the same idle time the preference kept most of its importance, the context
    # (an episode) lost most of its own
    assert now[pref.id].decay > now[fact.id].decay > now[ep.id].decay
    assert now[pref.id].effective == pytest.approx(0.9 * 0.5 ** (30 / 90), abs=1e-6)
    assert now[ep.id].effective == pytest.approx(0.4 * 0.5 ** (30 / 14), abs=1e-6)
    # gc forgets by it: the idle episode is below the threshold, the preference is not
    below = {c.id for c in service.lifecycle.gc(
        user, kinds=[MemoryKind.EPISODE, MemoryKind.RELATION]).candidates}
    assert ep.id in below and pref.id not in below and taste.id not in below
    with serve_api(service) as api:  # the importance query shows it
        shown = [api.data(HALF_LIFE, {"u": user, "id": i})["importance"]
                 for i in (fact.id, ep.id)]
    assert [(s["halfLifeDays"], s["decay"]) for s in shown] == [
        (30, 0.5), (14, round(0.5 ** (30 / 14), 6))]
    # recall's breakdown shows the same decay (as it was before this recall reviewed it)
    got = service.recall(_recall_in(user, "We talked about the weather.",
                                    [MemoryKind.EPISODE]))
    item = next(i for i in got.items if i.id == ep.id)
    assert item.scores.decay == pytest.approx(0.5 ** (30 / 14), abs=1e-6)
    got = service.recall(_recall_in(user, "Neovim", [MemoryKind.RELATION]))
    item = next(i for i in got.items if i.id == pref.id)
    assert item.scores.decay == pytest.approx(0.5 ** (30 / 90), abs=1e-6)


def _recall_in(user: str, query: str, kinds: list[MemoryKind]) -> RecallIn:
    return RecallIn(user_id=user, query=query, limit=50, kinds=kinds)


@pytest.mark.parametrize("bad", [0, -3, "soon", None, float("inf"), [30]])
def test_a_half_life_must_be_a_positive_number_of_days(bad: Any) -> None:
    with pytest.raises(pydantic.ValidationError) as e:
        make_settings(importance_half_life_by_category={"preference": bad})
    assert "importance_half_life_by_category" in str(e.value)


def test_half_lives_are_read_from_json_in_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_IMPORTANCE_HALF_LIFE_BY_CATEGORY",
                       '{"preference": 90, "context": 14.5}')
    assert Settings().importance_half_life_by_category == {"preference": 90.0,
                                                           "context": 14.5}
    for bad in ('{"preference": 0}', '{"lesson": -1}', '{"goal": "soon"}', "[90]"):
        monkeypatch.setenv("GRAPHMEM_IMPORTANCE_HALF_LIFE_BY_CATEGORY", bad)
        with pytest.raises(pydantic.ValidationError):
            Settings()


def test_recalled_memories_strengthen_and_recall_shows_importance_now(
        service: MemoryService, clock: FakeClock, user: str) -> None:
    hiking = relate(service, user, "hiking in the Alps", "preference")
    chess = relate(service, user, "playing chess", "preference")
    clock.tick(20 * DAY)
    result = service.recall(RecallIn(user_id=user, query="hiking in the Alps", limit=1,
                                     kinds=[MemoryKind.RELATION]))
    item = result.items[0]
    assert item.id == hiking.id
    # the breakdown holds importance now: untouched for 20 days, decayed from .9
    assert item.scores.decay == pytest.approx(0.5 ** (20 / 30), abs=1e-6)
    assert item.scores.importance == pytest.approx(0.9 * item.scores.decay, abs=1e-6)
    reviewed = service.lifecycle.importance(user, hiking.id)  # pending counts are seen
    assert reviewed.importance.access_count == 1
    assert reviewed.last_reviewed_at == clock.now and reviewed.importance.decay == 1.0
    assert reviewed.importance.reinforcement > 1.0
    service.access.flush()
    clock.tick(20 * DAY)
    strong = service.lifecycle.importance(user, hiking.id).importance
    weak = service.lifecycle.importance(user, chess.id).importance
    assert strong.access_count == 1 and weak.access_count == 0
    assert strong.effective > weak.effective
    assert weak.effective == pytest.approx(0.9 * 0.5 ** (40 / 30), abs=1e-6)
    assert strong.effective == pytest.approx(min(1.0, 0.9 * strong.reinforcement)
                                             * 0.5 ** (20 / 30), abs=1e-6)
    # reinforcement has diminishing returns and never passes 1
    for _ in range(5):
        service.recall(RecallIn(user_id=user, query="hiking in the Alps", limit=1,
                                kinds=[MemoryKind.RELATION]))
    service.access.flush()
    again = service.lifecycle.importance(user, hiking.id).importance
    assert again.access_count == 6 and again.effective == 1.0


def test_counts_being_written_are_still_seen_until_the_write_is_done(
        service: MemoryService, user: str) -> None:
    import threading

    hiking = relate(service, user, "hiking in the Alps", "preference")
    service.recall(RecallIn(user_id=user, query="hiking in the Alps", limit=1,
                            kinds=[MemoryKind.RELATION]))
    store, started, release = service.access._store, threading.Event(), threading.Event()
    bump = store.bump_access

    def slow_bump(*args: Any) -> None:  # the write takes its time
        started.set()
        assert release.wait(10)
        bump(*args)

    service.access._store = type("Slow", (), {"bump_access": staticmethod(slow_bump)})()
    writer = threading.Thread(target=service.access.flush)
    writer.start()
    try:
        assert started.wait(10)
        # taken out of the pending counts, not in the store yet: still counted
        assert service.lifecycle.importance(user, hiking.id).importance.access_count == 1
    finally:
        release.set()
        writer.join(10)
        service.access._store = store
    assert service.access.pending(user, "Relation", [hiking.id]) == {}
    assert service.lifecycle.importance(user, hiking.id).importance.access_count == 1


def test_feedback_moves_values_gradually_and_is_audited(
        service: MemoryService, store: Any, clock: FakeClock, user: str) -> None:
    rel = relate(service, user, "Vue", "preference:frontend", predicate="prefers",
                 exclusive=True, confidence=0.8)
    feedback = service.lifecycle.feedback
    entry, life = feedback(user, rel.id, "WRONG", "it was React")
    assert (entry.confidence_before, entry.confidence_after) == (0.8, 0.7)
    assert (entry.importance_before, entry.importance_after) == (0.9, 0.85)
    assert not life.needs_review and life.confidence == 0.7
    assert service.relation(user, rel.id).confidence == 0.7  # every read shows it
    for _ in range(2):
        clock.tick(60)
        entry, life = feedback(user, rel.id, "WRONG", None)
    assert life.confidence == pytest.approx(0.5) and not life.needs_review
    clock.tick(60)
    entry, life = feedback(user, rel.id, "WRONG", "still wrong")
    assert life.confidence == pytest.approx(0.4) and life.needs_review and entry.needs_review
    for _ in range(20):  # bounded: never below 0
        _, life = feedback(user, rel.id, "WRONG", None)
    assert life.confidence == 0.0 and life.importance.base == 0.0
    # marked for review, not deleted or hidden
    assert service.relation(user, rel.id).forgotten_at is None
    assert [r.id for r in service.relations(user, predicate="prefers")] == [rel.id]
    for _ in range(15):  # and never above 1
        _, life = feedback(user, rel.id, "HELPFUL", None)
    assert life.importance.base == 1.0 and life.confidence == 0.75 and not life.needs_review
    # the audit trail, oldest first, readable back
    log = service.lifecycle.importance(user, rel.id).feedback
    assert len(log) == 39
    assert [(e.signal, e.note) for e in log[:4]] == [
        ("WRONG", "it was React"), ("WRONG", None), ("WRONG", None), ("WRONG", "still wrong")]
    assert log[0].at == datetime(2026, 1, 1, tzinfo=UTC)
    assert log[3].at > log[0].at
    assert all(abs(e.importance_after - e.importance_before) <= 0.1 + 1e-9 and
               abs((e.confidence_after or 0) - (e.confidence_before or 0)) <= 0.1 + 1e-9
               for e in log)
    # new evidence for the relation re-derives its confidence and keeps what feedback did
    adjust = store.nodes("Relation", user, [rel.id])[0]["confidenceAdjust"]
    assert adjust == pytest.approx(-0.05)
    relate(service, user, "Vue", "preference:frontend", predicate="prefers", exclusive=True,
           confidence=0.9, source_ref="again")
    row = store.nodes("Relation", user, [rel.id])[0]
    assert row["confidence"] != 0.8 and row["confidenceAdjust"] == adjust
    assert service.relation(user, rel.id).confidence == pytest.approx(
        min(1.0, row["confidence"] + adjust))
    assert len(service.lifecycle.importance(user, rel.id).feedback) == 39


def test_outdated_lowers_importance_and_episodes_have_no_confidence(
        service: MemoryService, user: str) -> None:
    ep = service.add_episode(EpisodeIn(user_id=user, occurred_at=T0,
                                       content="Meeting moved to Friday.")).episode
    entry, life = service.lifecycle.feedback(user, ep.id, "OUTDATED")
    assert (entry.importance_before, entry.importance_after) == (0.4, 0.3)
    assert entry.confidence_before is None and life.confidence is None
    entry, _ = service.lifecycle.feedback(user, ep.id, "WRONG")
    assert entry.importance_after == pytest.approx(0.2)


def test_wrong_on_an_abstraction_lowers_its_confidence_and_marks_it_for_review(
        service: MemoryService, user: str) -> None:
    for n, text in enumerate(["I like hiking.", "I like jazz."]):
        service.add_episode(EpisodeIn(user_id=user, occurred_at=T0 + timedelta(days=n),
                                      content=text))
    a = service.reflect(user).written[0]
    assert service.lifecycle.importance(user, a.id).importance.base == 0.9  # a taste
    life = service.lifecycle.importance(user, a.id)
    while not life.needs_review:
        before = life.confidence or 0.0
        _, life = service.lifecycle.feedback(user, a.id, "WRONG")
        assert life.confidence == pytest.approx(max(0.0, before - 0.1))
    assert (life.confidence or 0.0) < 0.5
    [now] = service.abstractions(user)  # still there, with the confidence feedback left
    assert now.id == a.id and now.confidence == life.confidence


def test_feedback_on_unknown_or_foreign_ids_changes_nothing(
        service: MemoryService, store: Any, user: str) -> None:
    rel = relate(service, user, "jazz", "preference")
    other = f"{user}-other"
    relate(service, other, "rock", "preference")
    before = (digest(store, user), digest(store, other))
    for who, memory in ((other, rel.id), (user, "rel_nope"), (user, "xyz"),
                        (user, f"ent_{rel.id}")):
        with pytest.raises(NotFoundError):
            service.lifecycle.feedback(who, memory, "WRONG", "no")
        with pytest.raises(NotFoundError):
            service.lifecycle.importance(who, memory)
    with pytest.raises(InvalidInputError):
        service.lifecycle.feedback(user, rel.id, "MAYBE")
    with pytest.raises(InvalidInputError):
        service.lifecycle.feedback(user, rel.id, "HELPFUL", "x" * 2001)
    assert (digest(store, user), digest(store, other)) == before


def test_feedback_notes_are_guarded(service: MemoryService, user: str) -> None:
    rel = relate(service, user, "jazz", "preference")
    entry, _ = service.lifecycle.feedback(user, rel.id, "HELPFUL",
                                          "mail me at ana@example.com")
    assert "ana@example.com" not in (entry.note or "")


def test_gc_dry_run_changes_nothing_and_forgetting_is_restorable(
        service: MemoryService, store: Any, clock: FakeClock, user: str) -> None:
    old = [service.add_episode(EpisodeIn(user_id=user, occurred_at=T0, content=text)).episode
           for text in ("The printer jammed again.", "Lunch was at noon.")]
    pref = relate(service, user, "green tea", "preference")
    clock.tick(100 * DAY)  # episodes: .4 x 2^-(100/30) < .1; the preference: .09
    fresh = service.add_episode(EpisodeIn(user_id=user, occurred_at=T0,
                                          content="The printer works now.")).episode
    before = digest(store, user)
    report = service.lifecycle.gc(user)  # dry run, episodes only: the default
    assert report.dry_run and report.kinds == [MemoryKind.EPISODE] and report.forgotten == 0
    assert {c.id for c in report.candidates} == {e.id for e in old}
    assert all(c.importance < 0.1 for c in report.candidates) and report.scanned == 3
    assert any("would forget 2 of the user's 3 episodes" in w for w in report.warnings)
    assert digest(store, user) == before  # a dry run changes nothing
    learned = service.lifecycle.gc(user, kinds=[MemoryKind.RELATION, MemoryKind.ABSTRACTION])
    assert [c.id for c in learned.candidates] == [pref.id]
    assert "would forget 1 preference" in learned.warnings
    assert learned.warnings[0].startswith("relations and abstractions were asked for")
    assert digest(store, user) == before
    done = service.lifecycle.gc(user, dry_run=False)
    assert done.forgotten == 2 and "forgot 2 of the user's 3 episodes (66%)" in done.warnings
    hits = service.recall(RecallIn(user_id=user, query="printer", limit=10,
                                   kinds=[MemoryKind.EPISODE]))
    assert [i.id for i in hits.items] == [fresh.id]  # the forgotten ones are hidden
    assert service.lifecycle.gc(user).candidates == []  # forgotten ones are not listed again
    assert all(service.restore(user, e.id) for e in old)  # the ordinary soft forget
    hits = service.recall(RecallIn(user_id=user, query="printer", limit=10,
                                   kinds=[MemoryKind.EPISODE]))
    assert {e.id for e in old} <= {i.id for i in hits.items}
    assert service.relation(user, pref.id).forgotten_at is None  # episodes only


def test_gc_keeps_what_current_abstractions_rest_on(
        service: MemoryService, clock: FakeClock, user: str) -> None:
    said = [service.add_episode(EpisodeIn(user_id=user, occurred_at=T0 + timedelta(days=n),
                                          content=text))
            for n, text in enumerate(["I like hiking.", "I like jazz."])]
    lonely = relate(service, user, "Berlin", "identity", predicate="visited")
    abstraction = service.reflect(user).written[0]
    clock.tick(400 * DAY)
    sources = {s.relations[0].id for s in said}
    report = service.lifecycle.gc(user, kinds=[MemoryKind.EPISODE, MemoryKind.RELATION],
                                  dry_run=False)
    assert [c.id for c in report.candidates] == [lonely.id] and report.forgotten == 1
    kept = {k.id: k.reason for k in report.kept}
    assert {i: kept[i] for i in sources} == {i: "a source of a current abstraction"
                                             for i in sources}
    assert {kept[s.episode.id] for s in said} == {"evidence of a source of a current "
                                                  "abstraction"}
    assert service.lifecycle.importance(user, abstraction.id).forgotten is False
    assert service.relation(user, lonely.id).forgotten_at is not None
    assert service.restore(user, lonely.id)


def test_gc_refuses_bad_arguments(service: MemoryService, user: str) -> None:
    relate(service, user, "jazz", "preference")
    with pytest.raises(InvalidInputError):
        service.lifecycle.gc(user, kinds=[MemoryKind.ENTITY])
    with pytest.raises(InvalidInputError):
        service.lifecycle.gc(user, limit=0)
    with pytest.raises(InvalidInputError):
        service.lifecycle.gc(user, max_importance=1.5)
    with pytest.raises(NotFoundError):
        service.lifecycle.gc("nobody-here")


GC_OLDER = """mutation($u: ID!, $before: DateTime) {
  gc(userId: $u, dryRun: true, olderThan: $before) { candidates { id } scanned } }"""


def test_gc_older_than_looks_only_at_memories_from_before(
        service: MemoryService, store: Any, clock: FakeClock, user: str) -> None:
    """An episode counts by when it happened, a relation by when it was recorded; a bad
    instant is refused before anything is read."""
    early = service.add_episode(EpisodeIn(user_id=user, occurred_at=T0,
                                          content="The printer jammed.")).episode
    late = service.add_episode(EpisodeIn(user_id=user, occurred_at=T0 + timedelta(days=60),
                                         content="The scanner jammed.")).episode
    rel = relate(service, user, "green tea", "preference")  # recorded at the clock's now
    clock.tick(400 * DAY)  # everything is below the threshold now
    cut = T0 + timedelta(days=30)
    assert {c.id for c in service.lifecycle.gc(user).candidates} == {early.id, late.id}
    assert [c.id for c in service.lifecycle.gc(user, older_than=cut).candidates] == [early.id]
    recorded = service.relation(user, rel.id).recorded_at
    kinds = [MemoryKind.RELATION]
    assert service.lifecycle.gc(user, kinds=kinds, older_than=recorded).candidates == []
    assert [c.id for c in service.lifecycle.gc(
        user, kinds=kinds, older_than=recorded + timedelta(seconds=1)).candidates] == [rel.id]
    before = digest(store, user)
    with pytest.raises(InvalidInputError):
        service.lifecycle.gc(user, dry_run=False, older_than=datetime(1, 1, 1, tzinfo=UTC))
    assert digest(store, user) == before
    with serve_api(service) as api:
        found = api.data(GC_OLDER, {"u": user, "before": cut.isoformat()})["gc"]
        assert [c["id"] for c in found["candidates"]] == [early.id]
        err = api.errors(GC_OLDER, {"u": user, "before": "not a time"})
        assert err and "extensions" in err[0]


HEALTH = """query($u: ID!) { stats(userId: $u) { healthCheck {
  reflectionDue reflectionReason mixedEmbeddingModels danglingEdges
  integrityViolations { name count } memories { name count } forgotten needsReview
  belowThreshold warnings } } }"""


def test_health_check(service: MemoryService, store: Any, clock: FakeClock,
                      user: str) -> None:
    for n, text in enumerate(["I like hiking.", "I like jazz."]):
        service.add_episode(EpisodeIn(user_id=user, occurred_at=T0 + timedelta(days=n),
                                      content=text))
    doubtful = relate(service, user, "Paris", "identity", predicate="lives_in",
                      confidence=0.55)
    service.lifecycle.feedback(user, doubtful.id, "WRONG", "moved")
    clock.tick(90 * DAY)
    with serve_api(service) as api:
        got = api.data(HEALTH, {"u": user})["stats"]["healthCheck"]
    assert got["reflectionDue"] and got["reflectionReason"] == "1 new pattern(s)"
    assert got["danglingEdges"] == 0 and got["integrityViolations"] == []
    assert got["needsReview"] == [doubtful.id]
    memories = {m["name"]: m["count"] for m in got["memories"]}
    assert memories["Episode"] == 2 and memories["Relation"] == 3
    # the two episodes (.4 x 2^-3) and the doubtful relation ((.8 - .05) x 2^-3); the
    # likes stay above (.9 x 2^-3)
    assert got["belowThreshold"] == 3
    assert got["warnings"][0] == "reflection is due: 1 new pattern(s)"
    assert "1 memory(ies) marked for review after feedback" in got["warnings"]
    # a relation that lost its subject edge is reported as a dangling or missing edge
    subject = doubtful.subject_id
    raw(store, user, "MATCH (:Entity)-[s:SUBJECT_OF]->(r:Relation {id: $id}) DELETE s",
        id=doubtful.id)
    try:
        health = service.lifecycle.health(user, reflection_reason=None,
                                          embedding_models=["a", "b"])
        assert health.dangling_edges == 1 and health.integrity_violations == {
            "relation-edges": 1}
        assert health.mixed_embedding_models
        assert any(w.startswith("graphmem check found 1 integrity violation")
                   for w in health.warnings)
    finally:
        raw(store, user, "MATCH (e:Entity {id: $e}), (r:Relation {id: $r}) "
                         "CREATE (e)-[:SUBJECT_OF {at: 1}]->(r)", e=subject, r=doubtful.id)
    assert service.lifecycle.health(user, reflection_reason=None,
                                    embedding_models=[]).dangling_edges == 0


FEEDBACK = """mutation($u: ID!, $id: ID!, $s: FeedbackSignal!, $n: String) {
  feedback(userId: $u, id: $id, signal: $s, note: $n) {
    applied { signal note confidenceBefore confidenceAfter importanceBefore importanceAfter
              needsReview at }
    memory { id kind category importanceClass base effective confidence needsReview
             feedback { signal } } } }"""
IMPORTANCE = """query($u: ID!, $id: ID!) { importance(userId: $u, id: $id) {
  base decay reinforcement effective accessCount lastReviewedAt feedbackAdjustment } }"""
GC = """mutation($u: ID!, $dry: Boolean!, $kinds: [MemoryKind!]) {
  gc(userId: $u, dryRun: $dry, kinds: $kinds) { dryRun threshold scanned forgotten warnings
    candidates { id kind category importance } kept { id reason } } }"""
RECALL = """query($u: ID!) { recall(input: {userId: $u, query: "tea", kinds: [RELATION]}) {
  items { id scores { importance decay frequency recency } } } }"""


def test_lifecycle_over_graphql(service: MemoryService, clock: FakeClock, user: str) -> None:
    rel = relate(service, user, "green tea", "preference", confidence=0.9)
    with serve_api(service) as api:
        out = api.data(FEEDBACK, {"u": user, "id": rel.id, "s": "HELPFUL", "n": "yes"})
        applied, memory = out["feedback"]["applied"], out["feedback"]["memory"]
        assert applied["signal"] == "HELPFUL" and applied["note"] == "yes"
        assert (applied["importanceBefore"], applied["importanceAfter"]) == (0.9, 1.0)
        assert (applied["confidenceBefore"], applied["confidenceAfter"]) == (0.9, 0.95)
        assert memory["kind"] == "RELATION" and memory["importanceClass"] == "preference"
        assert memory["feedback"] == [{"signal": "HELPFUL"}]
        clock.tick(30 * DAY)
        imp = api.data(IMPORTANCE, {"u": user, "id": rel.id})["importance"]
        assert imp["base"] == 1.0 and imp["decay"] == 0.5 and imp["effective"] == 0.5
        assert imp["feedbackAdjustment"] == pytest.approx(0.1)
        items = api.data(RECALL, {"u": user})["recall"]["items"]
        assert items[0]["id"] == rel.id and items[0]["scores"]["importance"] == 0.5
        clock.tick(200 * DAY)
        dry = api.data(GC, {"u": user, "dry": True, "kinds": ["RELATION"]})["gc"]
        assert dry["dryRun"] and [c["id"] for c in dry["candidates"]] == [rel.id]
        assert "would forget 1 preference" in dry["warnings"]
        wet = api.data(GC, {"u": user, "dry": False, "kinds": ["RELATION"]})["gc"]
        assert wet["forgotten"] == 1
        err = api.errors(FEEDBACK, {"u": user, "id": "rel_unknown", "s": "WRONG"})
        assert err[0]["extensions"]["code"] == "NOT_FOUND"
        err = api.errors(GC, {"u": user, "dry": True, "kinds": ["ENTITY"]})
        assert err[0]["extensions"]["code"] == "BAD_USER_INPUT"


def test_a_key_cannot_give_feedback_or_gc_another_users_memory(
        embedded_store: Any, user: str) -> None:
    a, b = f"{user}-a", f"{user}-b"
    settings = make_settings(api_keys={"key-a": [a], "key-b": [b]})
    service = MemoryService(settings, embedded_store, HashingEmbedder(DIM), clock=FakeClock())
    rel = relate(service, b, "jazz", "preference")
    before = digest(embedded_store, b)
    with serve_api(service, settings, {"Authorization": "Bearer key-a"}) as api:
        for query, variables in ((FEEDBACK, {"u": b, "id": rel.id, "s": "WRONG"}),
                                 (GC, {"u": b, "dry": False}),
                                 (IMPORTANCE, {"u": b, "id": rel.id}),
                                 (HEALTH, {"u": b})):
            err = api.errors(query, variables)
            assert err[0]["extensions"]["code"] == "FORBIDDEN"
    assert digest(embedded_store, b) == before
