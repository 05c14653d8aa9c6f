"""Contract suite for episodes and recall: the same behaviour on every store backend."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from graphmem.errors import InvalidInputError, NotFoundError
from graphmem.inputs import EpisodeIn, MessageIn, RecallIn
from graphmem.model import MemoryKind, MemoryStatus, to_ms
from graphmem.service import MemoryService


def ep(user: str, text: str, when: str, ref: str | None = None, **kw: object) -> EpisodeIn:
    return EpisodeIn(user_id=user, occurred_at=when, content=text, source_ref=ref,
                     **kw)  # type: ignore[arg-type]


def test_episode_is_stored_with_provenance_and_resend_is_a_noop(service: MemoryService,
                                                                user: str) -> None:
    first = service.add_episode(ep(user, "I love hiking in the Alps.", "2024-03-01T10:00:00Z",
                                   "m1", speaker="Ana"))
    assert not first.duplicate
    assert first.episode.source_ref == "m1"
    assert first.episode.occurred_at == datetime(2024, 3, 1, 10, tzinfo=UTC)
    again = service.add_episode(ep(user, "I love hiking in the Alps.", "2024-03-01T10:00:00Z",
                                   "m1", speaker="Ana"))
    assert again.duplicate and again.episode.id == first.episode.id
    assert service.stats(user).episodes == 1


def test_conversational_timestamps_are_normalised(service: MemoryService, user: str) -> None:
    a = service.add_episode(ep(user, "hello there", "1:56 pm on 8 May, 2023"))
    b = service.add_episode(ep(user, "good night", "2023/05/20 (Sat) 00:44"))
    assert a.episode.occurred_at == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert b.episode.occurred_at == datetime(2023, 5, 20, 0, 44, tzinfo=UTC)


def test_preference_change_supersedes_through_extraction(service: MemoryService,
                                                         user: str) -> None:
    service.add_episode(EpisodeIn(user_id=user, occurred_at="2023-01-10T09:00:00Z",
                                  messages=[MessageIn("user", "I like Vue for frontend work.")]))
    res = service.add_episode(EpisodeIn(
        user_id=user, occurred_at="2024-06-01T09:00:00Z", source_ref="m2",
        messages=[MessageIn("user", "I now prefer React.")]))
    assert [r.object for r in res.relations] == ["React"]
    assert res.engine == "rules"
    current = service.relations(user, predicate="prefers")
    assert [r.object for r in current] == ["React"]
    last_year = service.relations(user, predicate="prefers",
                                  as_of=datetime(2023, 6, 1, tzinfo=UTC))
    assert [r.object for r in last_year] == ["Vue"]
    chain = service.history(user, current[0].id)
    assert [r.object for r in chain] == ["Vue", "React"]
    assert chain[0].status is MemoryStatus.SUPERSEDED


def test_secrets_are_redacted_before_storage(service: MemoryService, user: str) -> None:
    key = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    res = service.add_episode(ep(user, f"my key is {key} keep it safe", "2024-01-01"))
    assert key not in res.episode.content
    assert res.redacted
    stored = service.store.nodes("Episode", user, [res.episode.id])[0]
    assert key not in stored["content"]


def test_reject_mode_writes_nothing(store, clock) -> None:  # type: ignore[no-untyped-def]
    from graphmem.embed import HashingEmbedder

    from .conftest import DIM, make_settings

    svc = MemoryService(make_settings(secret_mode="reject"), store, HashingEmbedder(DIM),
                        clock=clock)
    with pytest.raises(InvalidInputError) as err:
        svc.add_episode(ep("reject-user", "password=hunter2hunter2 ok", "2024-01-01"))
    assert err.value.field == "content"
    with pytest.raises(NotFoundError):
        svc.stats("reject-user")


@pytest.mark.parametrize("bad, field", [
    (dict(content=None), "content"),
    (dict(occurred_at="not a date"), "occurredAt"),
    (dict(user_id=" "), "userId"),
    (dict(content="x" * 30000), "content"),
])
def test_bad_episodes_are_rejected(service: MemoryService, user: str,
                                   bad: dict[str, object], field: str) -> None:
    data: dict[str, object] = dict(user_id=user, occurred_at="2024-01-01", content="hi")
    data.update(bad)
    with pytest.raises(InvalidInputError) as err:
        service.add_episode(EpisodeIn(**data))  # type: ignore[arg-type]
    assert err.value.field == field


def test_a_bad_episode_in_a_batch_writes_none_of_it(service: MemoryService, user: str) -> None:
    batch = [ep(user, "I live in Porto.", "2024-01-01"), ep(user, "", "2024-01-02")]
    with pytest.raises(InvalidInputError) as err:
        service.add_episodes(batch)
    assert err.value.field == "inputs[1].content"
    with pytest.raises(NotFoundError):
        service.stats(user)


def test_recall_finds_episodes_and_relations_with_provenance(service: MemoryService,
                                                             user: str) -> None:
    service.add_episodes([
        ep(user, "I started learning Rust last week.", "2024-05-10", "t1"),
        ep(user, "We went to the beach with the kids.", "2024-05-11", "t2"),
        ep(user, "I live in Lisbon now.", "2024-05-12", "t3"),
    ])
    res = service.recall(RecallIn(user, "where does the user live?", limit=5))
    assert res.items, res
    assert any(ref == "t3" for it in res.items for ref in (s.source_ref for s in it.sources))
    top_rel = [it for it in res.items if it.kind is MemoryKind.RELATION]
    assert top_rel and all(it.sources for it in top_rel)
    for it in res.items:
        assert it.scores.fused > 0


def test_recall_reports_and_applies_a_time_window(service: MemoryService, user: str) -> None:
    service.add_episodes([
        ep(user, "I prefer tea in the morning.", "2023-04-01", "old"),
        ep(user, "I prefer coffee these days.", "2024-04-01", "new"),
    ])
    ref = datetime(2024, 6, 1, tzinfo=UTC)
    res = service.recall(RecallIn(user, "what did the user prefer last year?",
                                  reference_time=ref, limit=5))
    assert res.temporal_window is not None
    assert res.temporal_window.start == datetime(2023, 1, 1, tzinfo=UTC)
    first_episode = next(it for it in res.items if it.kind is MemoryKind.EPISODE)
    assert first_episode.sources[0].source_ref == "old"


def test_recall_cold_start_and_limits(service: MemoryService, user: str) -> None:
    res = service.recall(RecallIn(user, "anything"))
    assert res.cold_start and res.items == []
    with pytest.raises(InvalidInputError) as err:
        service.recall(RecallIn(user, "x", limit=0))
    assert err.value.field == "limit"


def test_recall_never_returns_superseded_as_current(service: MemoryService, user: str) -> None:
    from graphmem.inputs import RelationIn

    service.add_relation(RelationIn(user, "user", "lives_in", "Berlin",
                                    valid_from=datetime(2020, 1, 1, tzinfo=UTC)))
    service.add_relation(RelationIn(user, "user", "lives_in", "Madrid",
                                    valid_from=datetime(2023, 1, 1, tzinfo=UTC)))
    res = service.recall(RecallIn(user, "where does the user live", kinds=[MemoryKind.RELATION]))
    assert [it.text for it in res.items] == ["user lives in Madrid"]
    old = service.recall(RecallIn(user, "where does the user live", kinds=[MemoryKind.RELATION],
                                  as_of=datetime(2021, 1, 1, tzinfo=UTC)))
    assert [it.text for it in old.items] == ["user lives in Berlin"]


def test_recall_reports_disputes(service: MemoryService, user: str) -> None:
    from graphmem.inputs import RelationIn

    when = datetime(2024, 1, 1, tzinfo=UTC)
    a = service.add_relation(RelationIn(user, "user", "works_at", "Acme", valid_from=when))
    b = service.add_relation(RelationIn(user, "user", "works_at", "Globex", valid_from=when))
    res = service.recall(RecallIn(user, "where does the user work", kinds=[MemoryKind.RELATION]))
    assert res.conflicts and sorted(res.conflicts[0].ids) == sorted([a.id, b.id])
    assert "Acme" in res.conflicts[0].warning and "Globex" in res.conflicts[0].warning


def test_a_settled_dispute_is_reported_for_its_own_time_only(service: MemoryService,
                                                              user: str) -> None:
    from graphmem.inputs import RelationIn

    when = datetime(2024, 1, 1, tzinfo=UTC)
    a = service.add_relation(RelationIn(user, "user", "works_at", "Acme", valid_from=when))
    b = service.add_relation(RelationIn(user, "user", "works_at", "Globex", valid_from=when))
    c = service.add_relation(RelationIn(user, "user", "works_at", "Initech",
                                        valid_from=datetime(2024, 6, 1, tzinfo=UTC)))

    def ask(as_of: datetime | None) -> tuple[list[str], list[list[str]]]:
        res = service.recall(RecallIn(user, "where does the user work", as_of=as_of,
                                      kinds=[MemoryKind.RELATION]))
        return [it.id for it in res.items], [sorted(x.ids) for x in res.conflicts]

    items, conflicts = ask(None)
    assert items == [c.id] and conflicts == []
    items, conflicts = ask(datetime(2024, 3, 1, tzinfo=UTC))
    assert sorted(items) == sorted([a.id, b.id]) and conflicts == [sorted([a.id, b.id])]
    items, conflicts = ask(datetime(2023, 6, 1, tzinfo=UTC))
    assert items == [] and conflicts == []


def test_fulltext_ranks_more_and_rarer_words_first(service: MemoryService, user: str) -> None:
    from graphmem.inputs import RelationIn

    when = datetime(2024, 1, 1, tzinfo=UTC)
    for pred, obj, statement in (
            ("codes_in", "Java", None), ("lives_in", "Osaka", None), ("uses", "Notion", None),
            ("works_at", "Initech", None),
            ("edits_with", "Sublime Text", "Hugo Moreau edits code with Sublime Text as editor")):
        service.add_relation(RelationIn(user, "Hugo Moreau", pred, obj, valid_from=when,
                                        statement=statement))
    by_text = {r.id: r.statement for r in service.relations(user)}
    hits = service.store.fulltext_search("Relation", user, "Hugo editor", 10)
    assert len(hits) == 5
    assert "Sublime" in by_text[hits[0].id], [by_text[h.id] for h in hits]
    assert hits[0].score > hits[1].score
    # inflected English words meet: "work" finds "works at"
    hits = service.store.fulltext_search("Relation", user, "where does Hugo work", 10)
    assert "Initech" in by_text[hits[0].id], [by_text[h.id] for h in hits]


def test_hub_names_leave_the_fulltext_query(service: MemoryService, user: str) -> None:
    from graphmem.inputs import RelationIn
    from graphmem.store.base import HUB_DEGREE

    when = datetime(2024, 1, 1, tzinfo=UTC)
    service.add_relations([RelationIn(user, "Dana Whitfield", "met", f"Person {i}",
                                      valid_from=when) for i in range(HUB_DEGREE + 1)])
    service.add_relation(RelationIn(user, "Kim Park", "met", "Person 1", valid_from=when))
    hits = service.store.fulltext_search("Entity", user, "Dana Kim trail", 8)
    ids = {h.id for h in hits}
    degrees = service.store.entity_degrees(user, sorted(ids))
    assert sorted(degrees.values()) == [1, HUB_DEGREE + 1]
    recaller = service._recaller
    known: dict[str, int] = {}
    assert recaller._without_hub_names(user, hits, "Dana Kim trail", known) == "Kim trail"
    assert known == degrees
    # One degree read per recall: the graph expansion reuses what the hub check read.
    reads: list[list[str]] = []
    inner = service.store.entity_degrees

    def counted(user_id: str, ids: list[str]) -> dict[str, int]:
        reads.append(list(ids))
        return inner(user_id, ids)

    service.store.entity_degrees = counted  # type: ignore[method-assign]
    try:
        res = service.recall(RecallIn(user, "Who did Dana Whitfield meet?",
                                      kinds=[MemoryKind.RELATION]))
    finally:
        del service.store.entity_degrees
    assert res.items and all("Dana Whitfield met" in it.text for it in res.items)
    assert len(reads) == 1, reads


def test_aliases_resolve_to_one_entity_per_user(service: MemoryService, user: str) -> None:
    service.add_episodes([
        ep(user, "I use TS for the backend.", "2024-01-01", "a"),
        ep(user, "I really like TypeScript.", "2024-01-02", "b"),
        ep(user, "typescript is my favourite language", "2024-01-03", "c"),
    ])
    names = [r["name"] for r in service.store.export_nodes("Entity", user, 0, 100)]
    ts = [n for n in names if n.casefold() in {"ts", "typescript"}]
    assert ts == ["TypeScript"], names
    other = user + "-other"
    service.add_episode(ep(other, "I use TS daily.", "2024-01-01", "x"))
    mine = {r["id"] for r in service.store.export_nodes("Entity", user, 0, 100)}
    theirs = {r["id"] for r in service.store.export_nodes("Entity", other, 0, 100)}
    assert not mine & theirs


def test_similar_names_join_an_existing_entity(store, clock) -> None:  # type: ignore[no-untyped-def]
    from graphmem.embed import HashingEmbedder
    from graphmem.inputs import RelationIn

    from .conftest import DIM, make_settings

    svc = MemoryService(make_settings(entity_similarity=0.8), store, HashingEmbedder(DIM),
                        clock=clock)
    user = f"sim-{id(clock)}"
    svc.add_relation(RelationIn(user, "user", "works_at", "Acme Corporation"))
    svc.add_relation(RelationIn(user, "Acme Corporation.", "based_in", "Porto"))
    names = sorted(r["name"] for r in svc.store.export_nodes("Entity", user, 0, 100))
    assert names == ["Acme Corporation", "Porto", "user"]


class _FixedExtractor:
    """Returns the same statements whatever the text: the gate is under test, not a model."""

    name = "fixed"

    def extract(self, messages):  # type: ignore[no-untyped-def]
        from graphmem.model import ExtractedRelation, Extraction

        return Extraction(engine="rules", relations=[
            ExtractedRelation(subject="user", predicate="likes", object="Go", confidence=0.3),
            ExtractedRelation(subject="user", predicate="likes", object="Rust",
                              confidence=0.9)])


def test_low_confidence_statements_are_not_stored(store, clock) -> None:  # type: ignore[no-untyped-def]
    from graphmem.embed import HashingEmbedder

    from .conftest import DIM, make_settings

    svc = MemoryService(make_settings(min_confidence=0.6), store, HashingEmbedder(DIM),
                        clock=clock, extractor=_FixedExtractor())
    user = f"gate-{id(clock)}"
    res = svc.add_episode(ep(user, "whatever", "2024-01-01"))
    assert [r.object for r in res.relations] == ["Rust"]
    assert res.skipped_low_confidence == 1
    assert objects_of(svc.relations(user, include_history=True)) == {"Rust"}


def objects_of(rels) -> set[str]:  # type: ignore[no-untyped-def]
    return {r.object for r in rels}


def test_access_counts_are_batched_not_written_per_read(store, clock) -> None:  # type: ignore[no-untyped-def]
    from graphmem.embed import HashingEmbedder

    from .conftest import DIM, make_settings

    svc = MemoryService(make_settings(access_flush_count=1000, access_flush_s=3600), store,
                        HashingEmbedder(DIM), clock=clock)
    user = f"access-{id(clock)}"
    svc.add_episode(ep(user, "I live in Porto.", "2024-01-01", "p1"))
    calls: list[int] = []
    real = store.bump_access

    def counting(label, user_id, rows):  # type: ignore[no-untyped-def]
        calls.append(len(rows))
        return real(label, user_id, rows)

    store.bump_access = counting
    try:
        for _ in range(3):
            res = svc.recall(RecallIn(user, "where do I live", kinds=[MemoryKind.EPISODE]))
        assert res.items and calls == []  # nothing written on the read path
        svc.access.flush()
        assert calls  # one batched write per label
        row = svc.store.nodes("Episode", user, [res.items[0].id])[0]
        assert row["accessCount"] == 3
        assert row["lastAccessedAt"] == to_ms(clock())
        # the count feeds recall's frequency term
        again = svc.recall(RecallIn(user, "where do I live", kinds=[MemoryKind.EPISODE]))
        assert again.items[0].scores.frequency == pytest.approx(math.log1p(3))
    finally:
        del store.bump_access


def test_access_counts_stay_with_their_tenant_and_carry_an_older_count(store, clock) -> None:  # type: ignore[no-untyped-def]
    from graphmem.embed import HashingEmbedder
    from graphmem.store.base import WritePlan

    from .conftest import DIM, make_settings

    svc = MemoryService(make_settings(access_flush_count=1000, access_flush_s=3600), store,
                        HashingEmbedder(DIM), clock=clock)
    user, other = f"acc-a-{id(clock)}", f"acc-b-{id(clock)}"
    svc.add_episode(ep(user, "I live in Porto.", "2024-01-01", "p1"))
    mine = svc.recall(RecallIn(user, "where do I live", kinds=[MemoryKind.EPISODE])).items[0].id
    # a count an older version kept on the memory itself
    plan = WritePlan(user_id=user, at=to_ms(clock()) or 0)
    plan.update("Episode", mine, {"accessCount": 5})
    svc.apply(plan)
    # another tenant's flush naming this id changes nothing
    store.bump_access("Episode", other, [{"id": mine, "delta": 100, "at": 1}])
    assert svc.store.nodes("Episode", user, [mine])[0]["accessCount"] == 5
    svc.access.flush()
    assert svc.store.nodes("Episode", user, [mine])[0]["accessCount"] == 6
    exported = {r["id"]: r for r in svc.store.export_nodes("Episode", user, 0, 10)}
    assert exported[mine]["accessCount"] == 6


def test_paged_listings_come_from_the_store(service: MemoryService, user: str) -> None:
    service.add_episodes([ep(user, f"note number {i}", f"2024-01-{i + 1:02d}", f"n{i}",
                             session_id="s1" if i < 4 else "s2") for i in range(6)])
    total, ids = service.store.page_episodes(user, session_id=None, with_forgotten=False,
                                             offset=2, limit=3)
    rows = {r["id"]: r for r in service.store.nodes("Episode", user, ids)}
    assert total == 6 and [rows[i]["sourceRef"] for i in ids] == ["n2", "n3", "n4"]
    total, ids = service.store.page_episodes(user, session_id="s2", with_forgotten=False,
                                             offset=0, limit=10)
    assert total == 2
    service.add_episode(ep(user, "I use TypeScript and I live in Porto.", "2024-02-01"))
    total, ids = service.store.page_entities(user, needle="typescript", with_forgotten=False,
                                             offset=0, limit=10)
    names = [r["name"] for r in service.store.nodes("Entity", user, ids)]
    assert total == 1 and names == ["TypeScript"]
