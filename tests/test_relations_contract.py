"""Contract suite for relations: the same behaviour on every store backend."""

from __future__ import annotations

import itertools
import os
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.errors import InvalidInputError, NotFoundError
from graphmem.inputs import RelationIn
from graphmem.model import MemoryStatus
from graphmem.service import MemoryService

from .conftest import FakeClock


def day(n: int) -> datetime:
    return datetime(2024, 1, 1, tzinfo=UTC) + timedelta(days=n)


def prefers(user: str, obj: str, start: int | None = None, **kw: object) -> RelationIn:
    return RelationIn(user, "user", "prefers", obj,
                      valid_from=day(start) if start is not None else None,
                      exclusive=True, **kw)  # type: ignore[arg-type]


def objects(rels) -> set[str]:  # type: ignore[no-untyped-def]
    return {r.object for r in rels}


def test_supersede_backfill_and_history(service: MemoryService, user: str) -> None:
    vue = service.add_relation(prefers(user, "Vue", 0))
    react = service.add_relation(prefers(user, "React", 100))
    svelte = service.add_relation(prefers(user, "Svelte", 50))  # back-filled
    assert objects(service.relations(user, as_of=day(10))) == {"Vue"}
    assert objects(service.relations(user, as_of=day(60))) == {"Svelte"}
    assert objects(service.relations(user, as_of=day(200))) == {"React"}
    chain = service.history(user, svelte.id)
    assert [r.object for r in chain] == ["Vue", "Svelte", "React"]
    assert [r.status for r in chain] == [MemoryStatus.SUPERSEDED, MemoryStatus.SUPERSEDED,
                                         MemoryStatus.ACTIVE]
    assert chain[0].valid_until == day(50) and chain[1].valid_until == day(100)
    # the same chain whichever member is named
    assert [r.id for r in service.history(user, vue.id)] == [r.id for r in chain]
    current = service.relations(user, as_of=day(200))[0]
    assert current.id == react.id and current.supersedes_ids == [svelte.id]


def test_same_object_reinforces(service: MemoryService, user: str) -> None:
    first = service.add_relation(prefers(user, "Vue", 0, confidence=0.6))
    again = service.add_relation(prefers(user, "vue", 5, confidence=0.6))
    assert again.id == first.id
    assert again.confidence > first.confidence
    assert len(service.relations(user, include_history=True)) == 1


def test_same_start_conflict_is_disputed_until_superseded(service: MemoryService,
                                                          user: str) -> None:
    a = service.add_relation(prefers(user, "Vue", 10))
    b = service.add_relation(prefers(user, "React", 10))
    now = service.relations(user, as_of=day(20))
    assert objects(now) == {"Vue", "React"}
    assert {r.status for r in now} == {MemoryStatus.DISPUTED}
    by_id = {r.id: r for r in now}
    assert by_id[a.id].disputes_ids == [b.id] and by_id[b.id].disputes_ids == [a.id]
    service.add_relation(prefers(user, "Svelte", 30))
    assert objects(service.relations(user, as_of=day(40))) == {"Svelte"}
    assert objects(service.relations(user, as_of=day(20))) == {"Vue", "React"}
    assert {r.status for r in service.relations(user, as_of=day(20))} == {
        MemoryStatus.SUPERSEDED}


def test_known_at_answers_what_we_believed_then(service: MemoryService, user: str,
                                                clock: FakeClock) -> None:
    service.add_relation(prefers(user, "Vue", 0))
    believed = clock.tick(60)
    clock.tick(60)
    service.add_relation(prefers(user, "React", 100))
    assert objects(service.relations(user, as_of=day(200))) == {"React"}
    then = service.relations(user, as_of=day(200), known_at=believed)
    assert objects(then) == {"Vue"}
    assert then[0].status == MemoryStatus.ACTIVE and then[0].valid_until is None
    before_anything = clock.now - timedelta(days=3650)
    assert service.relations(user, known_at=before_anything) == []


def test_non_exclusive_predicates_accumulate(service: MemoryService, user: str) -> None:
    service.add_relation(RelationIn(user, "user", "likes", "hiking", valid_from=day(0)))
    service.add_relation(RelationIn(user, "user", "likes", "chess", valid_from=day(5)))
    assert objects(service.relations(user, as_of=day(10))) == {"hiking", "chess"}


def test_declared_valid_until_closes_the_interval(service: MemoryService, user: str) -> None:
    service.add_relation(RelationIn(user, "user", "works_at", "Acme", valid_from=day(0),
                                    valid_until=day(30)))
    assert objects(service.relations(user, as_of=day(10))) == {"Acme"}
    assert service.relations(user, as_of=day(31)) == []


def test_filters_by_subject_and_predicate(service: MemoryService, user: str) -> None:
    service.add_relation(RelationIn(user, "Alice", "lives_in", "Paris", valid_from=day(0)))
    service.add_relation(RelationIn(user, "Bob", "lives_in", "Rome", valid_from=day(0)))
    service.add_relation(RelationIn(user, "Alice", "likes", "tea", valid_from=day(0)))
    assert objects(service.relations(user, subject="alice", as_of=day(1))) == {"Paris", "tea"}
    assert objects(service.relations(user, predicate="lives_in", as_of=day(1))) == {
        "Paris", "Rome"}


def test_forget_hides_and_restore_brings_back_unchanged(service: MemoryService,
                                                        user: str) -> None:
    rel = service.add_relation(prefers(user, "Vue", 0))
    assert service.forget(user, rel.id) is True
    assert service.forget(user, rel.id) is False
    assert service.relations(user, as_of=day(5)) == []
    hist = service.relations(user, include_history=True)
    assert [r.status for r in hist] == [MemoryStatus.FORGOTTEN]
    assert service.restore(user, rel.id) is True
    back = service.relations(user, as_of=day(5))
    assert [(r.id, r.status, r.confidence) for r in back] == [
        (rel.id, MemoryStatus.ACTIVE, rel.confidence)]


def test_tenants_never_see_each_other(service: MemoryService, user: str) -> None:
    rel = service.add_relation(prefers(user, "Vue", 0))
    other = user + "-other"
    service.add_relation(prefers(other, "React", 0))
    assert objects(service.relations(other, as_of=day(1))) == {"React"}
    with pytest.raises(NotFoundError):
        service.history(other, rel.id)
    with pytest.raises(NotFoundError):
        service.forget(other, rel.id)
    assert objects(service.relations(user, as_of=day(1))) == {"Vue"}


@pytest.mark.parametrize("bad, field", [
    (dict(subject=""), "subject"),
    (dict(predicate="   "), "predicate"),
    (dict(object="x" * 5000), "object"),
    (dict(user_id=""), "userId"),
    (dict(valid_from=day(5), valid_until=day(1)), "validUntil"),
    (dict(confidence=1.5), "confidence"),
])
def test_bad_input_is_rejected_and_writes_nothing(service: MemoryService, user: str,
                                                  bad: dict[str, object], field: str) -> None:
    data = dict(user_id=user, subject="user", predicate="prefers", object="Vue")
    data.update(bad)
    with pytest.raises(InvalidInputError) as err:
        service.add_relation(RelationIn(**data))  # type: ignore[arg-type]
    assert err.value.field == field
    with pytest.raises(NotFoundError):
        service.relations(user)


def test_unknown_user_and_ids_are_clear_errors(service: MemoryService, user: str) -> None:
    with pytest.raises(NotFoundError, match="user"):
        service.stats(user)
    service.add_relation(prefers(user, "Vue", 0))
    with pytest.raises(NotFoundError):
        service.history(user, "rel_doesnotexist")
    with pytest.raises(NotFoundError):
        service.forget(user, "nonsense")


def test_stats_counts(service: MemoryService, user: str) -> None:
    service.add_relation(prefers(user, "Vue", 0))
    service.add_relation(prefers(user, "React", 10))
    stats = service.stats(user)
    assert stats.relations == 2 and stats.entities == 3
    assert stats.by_status == {"SUPERSEDED": 1, "ACTIVE": 1}


# --------------------------------------------------------------------------- properties

_seq = itertools.count()
event_st = st.tuples(st.sampled_from(["Vue", "React", "Svelte"]), st.integers(0, 8))


def _reference(known: list[tuple[str, int]], t: int) -> set[str]:
    starts = [s for _, s in known if s <= t]
    if not starts:
        return set()
    latest = max(starts)
    return {o for o, s in known if s == latest}


@settings(max_examples=int(os.environ.get("GRAPHMEM_PROP_EXAMPLES", "25")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=st.lists(event_st, min_size=1, max_size=7, unique=True), data=st.data())
def test_random_histories_match_the_reference_at_random_points(
        service: MemoryService, clock: FakeClock, events: list[tuple[str, int]],
        data: st.DataObject) -> None:
    user = f"prop-{next(_seq)}"
    order = data.draw(st.permutations(events))
    recorded: list[tuple[datetime, tuple[str, int]]] = []
    for obj, start in order:
        at = clock.tick(10)
        service.add_relation(RelationIn(user, "user", "prefers", obj,
                                        valid_from=day(start * 10), exclusive=True))
        recorded.append((at, (obj, start * 10)))
    points = data.draw(st.lists(st.tuples(st.integers(-1, 95), st.integers(0, len(order))),
                                min_size=3, max_size=6))
    for t, k in points:
        known_at = recorded[k - 1][0] if k else recorded[0][0] - timedelta(seconds=5)
        known = [ev for at, ev in recorded if at <= known_at]
        got = service.relations(user, as_of=day(t), known_at=known_at)
        assert objects(got) == _reference(known, t), (order, t, k)
        if len(got) > 1:
            assert {r.status for r in got} <= {MemoryStatus.DISPUTED, MemoryStatus.SUPERSEDED}
    final = service.relations(user, as_of=day(200))
    assert objects(final) == _reference([ev for _, ev in recorded], 200)
    latest = max(s for _, s in events)
    if len({o for o, s in events if s == latest}) > 1:
        assert {r.status for r in final} == {MemoryStatus.DISPUTED}


def test_schema_bootstrap_is_idempotent(store, user: str) -> None:  # type: ignore[no-untyped-def]
    store.ensure_schema()
    store.ensure_schema()
    assert store.count("Relation", user) == (0, 0)
