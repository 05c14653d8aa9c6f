"""Graph expansion: which entities it starts from, and how it ranks what it reaches."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from graphmem.inputs import EpisodeIn, RecallIn, RelationIn
from graphmem.model import MemoryKind
from graphmem.recall import Recaller
from graphmem.recall_model import DEFAULT_TUNING
from graphmem.service import MemoryService
from graphmem.store.base import Row, expand_from


def test_second_hop_follows_the_better_seed_and_fetches_with_headroom() -> None:
    # seed "a" (best) -> neighbour "n1"; seed "b" -> neighbour "n2". Relation ids of n2
    # sort first, so an id order (or the adjacency query's own LIMIT) would favour b.
    graph: dict[str, list[Row]] = {
        "a": [{"id": "r-a1", "subjectId": "a", "objectId": "n1"}],
        "b": [{"id": "r-b1", "subjectId": "b", "objectId": "n2"}],
        "n1": [{"id": "z-n1", "subjectId": "n1", "objectId": "x"}],
        "n2": [{"id": "c-n2", "subjectId": "n2", "objectId": "y"}],
    }
    limits: list[int] = []

    def adjacent(ids: list[str], limit: int) -> list[Row]:
        limits.append(limit)
        rows = {r["id"]: r for i in sorted(ids) for r in graph.get(i, [])}
        return sorted(rows.values(), key=lambda r: r["id"])[:limit]

    hits = expand_from(lambda ids: dict.fromkeys(ids, 1), adjacent, ["a", "b"], 10)
    assert [h.id for h in hits] == ["r-a1", "r-b1", "z-n1", "c-n2"]
    assert [h.score for h in hits] == [1.0, 1.0, 3.0, 3.0]
    assert limits == [10, 40]


def test_a_two_hop_question_finds_the_relation_its_path_leads_to(service: MemoryService,
                                                                  user: str) -> None:
    when = datetime(2024, 1, 1, tzinfo=UTC)
    service.add_relations([RelationIn(user, s, p, o, valid_from=when) for s, p, o in (
        ("Omar Okafor", "works_at", "Acme Systems"),
        ("Omar Okafor", "lives_in", "Riga"),
        ("Acme Systems", "located_in", "Lyon"),
        ("Acme Systems", "uses", "Postgres"),
        ("Lena Berg", "works_at", "Acme Systems"),
        ("Omar Novak", "works_at", "Blue Labs"),
        ("Blue Labs", "located_in", "Osaka"),
    )])
    # The graph alone decides: which relations it reaches, in which order.
    graph_only = replace(DEFAULT_TUNING, vector_weight=0.0, fulltext_weight=0.0,
                         graph_weight=1.0)
    recaller = Recaller(service.store, service.embedder.embed_one, None, tuning=graph_only)
    res = recaller.recall(RecallIn(user, "In which city is the company Omar Okafor works at "
                                         "located?", kinds=[MemoryKind.RELATION]).validated(1000),
                          datetime.now(UTC))
    texts = [it.text for it in res.items]
    assert texts[0] == "Acme Systems located in Lyon", texts
    assert "Omar Okafor works at Acme Systems" in texts[:3]
    # Only "Omar Okafor" seeds the expansion: the other Omar's company is not reached.
    assert not any("Blue Labs" in t for t in texts), texts
    # Starting from every entity the words touch reaches it.
    every = Recaller(service.store, service.embedder.embed_one, None,
                     tuning=replace(graph_only, graph_seed_ratio=0.0))
    res = every.recall(RecallIn(user, "In which city is the company Omar Okafor works at "
                                      "located?", kinds=[MemoryKind.RELATION]).validated(1000),
                       datetime.now(UTC))
    assert any("Blue Labs" in it.text for it in res.items)


def test_graph_settings_lift_the_two_hop_answer(service: MemoryService, user: str) -> None:
    when = datetime(2024, 1, 1, tzinfo=UTC)
    facts = [("Omar Okafor", "works_at", "Acme Systems"), ("Acme Systems", "located_in", "Lyon")]
    # Distractors that share the question's words but hang off other people and companies.
    facts += [(f"{first} Okafor", "works_at", f"{first} Works") for first in
              ("Jun", "Kemal", "Nadia", "Dara", "Hana", "Ivo")]
    facts += [(f"{first} Works", "located_in", city) for first, city in
              (("Jun", "Oslo"), ("Kemal", "Lima"), ("Nadia", "Riga"), ("Dara", "Bern"),
               ("Hana", "Graz"), ("Ivo", "Cork"))]
    service.add_relations([RelationIn(user, s, p, o, valid_from=when) for s, p, o in facts])
    question = "In which city is the company Omar Okafor works at located?"

    def rank(svc: MemoryService) -> int | None:
        res = svc.recall(RecallIn(user, question, kinds=[MemoryKind.RELATION], limit=10))
        texts = [it.text for it in res.items]
        return texts.index("Acme Systems located in Lyon") if \
            "Acme Systems located in Lyon" in texts else None

    plain = rank(MemoryService(service.settings.model_copy(
        update={"recall_preset": "conversation"}), service.store, service.embedder))
    tuned = MemoryService(service.settings.model_copy(update={"graph_cover_weight": 2.0,
                                                              "graph_prior": 0.5,
                                                              "recall_preset": "conversation"}),
                          service.store, service.embedder)
    lifted = rank(tuned)
    assert lifted is not None and lifted <= 2, lifted
    assert plain is None or plain > lifted, (plain, lifted)
    # a memory made of relations sent as relations: recall picks the relations preset
    auto = service.recall(RecallIn(user, question, kinds=[MemoryKind.RELATION], limit=10))
    assert auto.preset == "relations"
    assert rank(service) is not None and rank(service) <= 2


def test_the_relations_preset_leaves_one_hop_answers_first(service: MemoryService,
                                                            user: str) -> None:
    """A two-hop neighbour gains nothing through a relation that answers the question
    whole: "user likes chess", reached through "user likes hiking in the Alps"."""
    for obj in ("hiking in the Alps", "playing chess", "reading novels"):
        service.add_relation(RelationIn(user, "user", "likes", obj, category="preference"))
    res = service.recall(RecallIn(user, "hiking in the Alps", kinds=[MemoryKind.RELATION]))
    assert res.preset == "relations"
    assert res.items[0].text == "user likes hiking in the Alps"


def test_a_chat_user_keeps_the_conversation_preset(service: MemoryService, user: str) -> None:
    """Relations learned from episodes do not make a memory 'made of relations'."""
    for n, text in enumerate(("I live in Lisbon.", "I work at Acme.", "I like green tea.")):
        service.add_episode(EpisodeIn(user_id=user, content=text,
                                      occurred_at=datetime(2024, 1, 1 + n, tzinfo=UTC)))
    assert service.stats(user).relations >= service.stats(user).episodes
    res = service.recall(RecallIn(user, "Where do I live?"))
    assert res.preset == "conversation"
