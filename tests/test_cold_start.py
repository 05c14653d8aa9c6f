"""An empty recall asks whether the user has any memory at all (coldStart): that question
must not count every node of a big user (a scan: tens of milliseconds at 100k relations),
the first node found answers it, on both stores."""

from __future__ import annotations

from graphmem.inputs import RecallIn, RelationIn
from graphmem.model import MemoryKind


def test_has_nodes_answers_without_counting(service) -> None:  # type: ignore[no-untyped-def]
    assert not service.store.has_nodes("Relation", "hana")
    service.add_relations([RelationIn(user_id="hana", subject="Hana", predicate="likes",
                                      object="tea")])
    assert service.store.has_nodes("Relation", "hana")
    assert not service.store.has_nodes("Relation", "hben")
    assert not service.store.has_nodes("Episode", "hana")


def test_an_empty_recall_of_a_user_with_memories_is_not_a_cold_start(
        service) -> None:  # type: ignore[no-untyped-def]
    empty = service.recall(RecallIn(user_id="cold", query="zeppelin"))
    assert empty.cold_start and not empty.items
    service.add_relations([RelationIn(user_id="cold", subject="Cold", predicate="likes",
                                      object="tea")])
    result = service.recall(RecallIn(user_id="cold", query="zeppelin",
                                     kinds=[MemoryKind.ABSTRACTION]))
    assert not result.items and not result.cold_start
