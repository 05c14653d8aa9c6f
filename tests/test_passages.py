"""Passages of long episodes (graphmem/_passages.py): spans with vectors of their own, found
through recall as their episode, written with it, one user's only, hidden with it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from graphmem._passages import (
    MAX_UNITS,
    OVERLAP_UNITS,
    Span,
    parse_id,
    passage_id,
    spans,
    split,
    statements,
    units,
    with_passages,
)
from graphmem.embed import HashingEmbedder
from graphmem.errors import GraphMemError
from graphmem.store.base import Hit, NodeWrite, WritePlan
from graphmem.store.falkor import FalkorStore
from graphmem.store.queries import PASSAGE

from .api_support import make_service, serve_api
from .conftest import DIM, FakeClock

FILLER = ("The quarterly planning notes cover hiring, office moves and the budget review. "
          "Several teams asked for more time on the migration of the billing system. ")
FACT = "My locker combination at the climbing gym is four eight fifteen."
QUESTION = "What is the locker combination at my climbing gym?"
AT = "2024-05-01T10:00:00Z"

ADD = """mutation($in: EpisodeInput!) { addEpisode(input: $in) { episode { id } } }"""
RECALL = """query($in: RecallInput!) { recall(input: $in) {
  items { kind id passage scores { vector } sources { sourceRef } } } }"""
FORGET = """mutation($u: ID!, $id: ID!) { forget(userId: $u, id: $id) }"""
RESTORE = """mutation($u: ID!, $id: ID!) { restore(userId: $u, id: $id) }"""


def long_text() -> str:
    """About 5,000 characters with the fact starting at character 3,000 or so."""
    head = FILLER * 20
    head = head[: head.rfind(". ", 0, 3000) + 2]
    return head + FACT + " " + FILLER * 12


# --------------------------------------------------------------------------- splitting


def test_short_texts_have_no_passages_long_ones_are_covered_with_overlap() -> None:
    assert split("A short message about my cat.") == []
    text = long_text()
    spans = split(text)
    assert len(spans) >= 4
    assert spans[0].start == 0 and spans[-1].end == len(text.rstrip())
    for a, b in zip(spans, spans[1:], strict=False):
        assert b.start < a.end  # neighbours overlap ...
        assert units(text[b.start:a.end]) <= OVERLAP_UNITS  # ... by at most the overlap
    for s in spans:
        assert units(text[s.start:s.end]) <= MAX_UNITS
        assert text[s.start:s.end].endswith(".")  # whole sentences
    assert any(FACT in text[s.start:s.end] for s in spans)  # the fact whole in one


def test_chinese_is_counted_by_character_and_cut_at_sentence_ends() -> None:
    text = "我们在杭州租了个小房子，离老城区很近。" * 40
    spans = split(text)
    assert len(spans) >= 4
    for s in spans:
        assert units(text[s.start:s.end]) <= MAX_UNITS and text[s.end - 1] == "。"


def test_a_sentence_longer_than_a_passage_is_cut_into_pieces() -> None:
    text = " ".join(f"word{i}" for i in range(3 * MAX_UNITS))
    spans = split(text)
    assert len(spans) >= 3 and all(units(text[s.start:s.end]) <= MAX_UNITS for s in spans)
    assert spans[-1].end == len(text)


def test_statements_said_in_passing_are_passages_of_their_own() -> None:
    text = ("Can you help me word an email? A client project is going sideways. "
            "Unrelated, but after the reorg Lena Vogel took over as my manager. "
            "Could you keep it short? Please make it friendly. We moved to Utrecht in May. "
            "I ok. Here is the draft.")
    said = [text[s.start:s.end] for s in statements(text)]
    # statements only: not the questions, the requests or a too-short one
    assert said == ["A client project is going sideways.",
                    "Unrelated, but after the reorg Lena Vogel took over as my manager.",
                    "We moved to Utrecht in May."]
    # a statement with the "I" left out is the speaker's too; an order to the assistant,
    # or a sentence to or of "you", is not
    chat = ("Caught the 8:40 tram to the office again this morning. Explain how DNS works in "
            "simple terms. Your last answer about routers was great. Now, suggest a few "
            "podcasts about cities.")
    assert [chat[s.start:s.end] for s in statements(chat)] == [
        "Caught the 8:40 tram to the office again this morning."]
    # ... the user's: in an assistant's turn only first-person sentences count
    reply = "Took the scenic route in the example below. I kept the list short on purpose. More?"
    assert [reply[s.start:s.end] for s in statements(reply, user=False)] == [
        "I kept the list short on purpose."]
    assert len(statements(reply)) == 2
    zh_chat = ("补充一下背景：来苏州两年了，每天骑车上班。"
               "言归正传，推荐几本讲城市规划的书。你觉得呢？")
    assert [zh_chat[s.start:s.end] for s in statements(zh_chat)] == [
        "补充一下背景：来苏州两年了，每天骑车上班。"]
    assert statements("I moved to Utrecht in May.") == []  # one sentence: its own vector
    # a side note in brackets or a quote ends its sentence before the next one
    noted = ("Please look over my email. (Side note: my manager, Priya Raman, reads it "
             "first.) How would you phrase the delay?")
    assert [noted[s.start:s.end] for s in statements(noted)] == [
        "(Side note: my manager, Priya Raman, reads it first.)"]
    # a title's dot ends no sentence
    doctor = "Please book a check-up. My dentist is Dr. Okafor on Main Street. Thanks!"
    assert [doctor[s.start:s.end] for s in statements(doctor)] == [
        "My dentist is Dr. Okafor on Main Street."]
    zh = "你能帮我写一封邮件吗？顺便说一下，我们上个月搬到了杭州。请写得正式一点。"
    assert [zh[s.start:s.end] for s in statements(zh)] == ["顺便说一下，我们上个月搬到了杭州。"]
    # a long episode's passages: its statements first, then its windows, no span twice
    long = long_text()
    found = spans(long)
    assert long[found[0].start:found[0].end] == FACT
    assert found[1:] == split(long) and len(set(found)) == len(found)


def test_statement_passages_are_capped_per_episode() -> None:
    from graphmem._passages import MAX_STATEMENTS

    text = " ".join(f"I visited city number {i} last year." for i in range(40))
    assert len(statements(text)) == MAX_STATEMENTS


def test_ids_name_the_episode_and_the_span() -> None:
    assert parse_id(passage_id("ep#1", Span(10, 200))) == ("ep#1", Span(10, 200))
    assert parse_id("ep_1") is None and parse_id("ep#a-b") is None


def test_an_episode_scores_its_best_passage_when_that_is_higher() -> None:
    hits, spans = with_passages([Hit("a", 0.5), Hit("b", 0.4)],
                                [Hit(passage_id("b", Span(0, 9)), 0.9),
                                 Hit(passage_id("a", Span(5, 9)), 0.3),
                                 Hit(passage_id("c", Span(1, 2)), 0.45)], k=2)
    assert hits == [Hit("b", 0.9), Hit("a", 0.5)]
    assert spans == {"b": Span(0, 9)}  # a kept its own score; c fell below k


# --------------------------------------------------------------------------- the service


def _add(api: Any, user: str, ref: str, content: str) -> str:
    return str(api.data(ADD, {"in": {"userId": user, "content": content, "sourceRef": ref,
                                     "occurredAt": AT}}
                        )["addEpisode"]["episode"]["id"])


def _recall(api: Any, user: str, query: str = QUESTION) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = api.data(RECALL, {"in": {
        "userId": user, "query": query, "limit": 5, "kinds": ["EPISODE"]}})["recall"]["items"]
    return items


def test_a_fact_deep_in_a_long_episode_is_found_by_its_passage(
        store: Any, user: str, clock: FakeClock) -> None:
    text = long_text()
    assert 2900 <= text.index(FACT) <= 3100
    other = user + "-other"
    with serve_api(make_service(store, clock)) as api:
        eid = _add(api, user, "long-1", text)
        _add(api, user, "long-2", FILLER * 25)
        _add(api, user, "short-1", "We talked about the billing migration again.")
        items = _recall(api, user)
        assert items[0]["id"] == eid and items[0]["sources"][0]["sourceRef"] == "long-1"
        # found by the vector search through the passage holding the fact, not the opening
        assert FACT in items[0]["passage"] and len(items[0]["passage"]) < len(text) / 2
        # ... which the vector search ranks above the other episodes (their openings and
        # passages say nothing about lockers)
        assert len(items) == 3
        assert all(items[0]["scores"]["vector"] > (i["scores"]["vector"] or 0)
                   for i in items[1:])
        # the whole episode is still one memory with one source
        assert len([i for i in items if i["id"] == eid]) == 1
        # another user sees neither the episode nor its passages
        oid = _add(api, other, "o-1", "Nothing about lockers here, only " + FILLER)
        assert all(i["id"] != eid for i in _recall(api, other))
    vec = HashingEmbedder(DIM).embed_one(FACT)
    # the other user's passages are of their own episode only (its two statements)
    theirs = store.vector_search(PASSAGE, other, vec, 50)
    assert {p[0] for h in theirs if (p := parse_id(h.id)) is not None} == {oid}
    mine = store.vector_search(PASSAGE, user, vec, 50)
    assert mine and {parse_id(h.id)[0] for h in mine if parse_id(h.id)} == {  # type: ignore[index]
        eid, _episode_id_of(mine, eid)}


def _episode_id_of(hits: list[Hit], known: str) -> str:
    """The other long episode's id among the passage hits (the filler one)."""
    ids = {p[0] for h in hits if (p := parse_id(h.id)) is not None} - {known}
    assert len(ids) == 1
    return ids.pop()


def test_forget_hides_the_episode_found_by_a_passage_and_restore_brings_it_back(
        store: Any, user: str, clock: FakeClock) -> None:
    with serve_api(make_service(store, clock)) as api:
        eid = _add(api, user, "long-1", long_text())
        _add(api, user, "short-1", "We talked about the billing migration again.")
        assert _recall(api, user)[0]["id"] == eid
        assert api.data(FORGET, {"u": user, "id": eid})["forget"] is True
        assert all(i["id"] != eid for i in _recall(api, user))
        assert api.data(RESTORE, {"u": user, "id": eid})["restore"] is True
        items = _recall(api, user)
        assert items[0]["id"] == eid and FACT in items[0]["passage"]


class _PoisonedPassages:
    """The real store, except that a plan's passages carry a value the database rejects
    (their step runs after the episodes')."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.name = inner.name

    def apply(self, plan: WritePlan) -> None:
        for n in plan.passages:
            n.props["nested"] = {"not": "storable"}
        self._inner.apply(plan)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._inner, attr)


def test_passages_are_written_with_their_episode_or_not_at_all(
        store: Any, user: str, clock: FakeClock) -> None:
    service = make_service(_PoisonedPassages(store), clock)
    from graphmem.inputs import EpisodeIn

    with pytest.raises(GraphMemError):
        service.add_episode(EpisodeIn(user_id=user, occurred_at=AT, content=long_text(),
                                      source_ref="p-1"))
    assert store.export_nodes("Episode", user, 0, 10) == []
    assert store.vector_search(PASSAGE, user, HashingEmbedder(DIM).embed_one(FACT), 10) == []
    # the same episode through the real store: the episode and its passages together
    res = make_service(store, clock).add_episode(
        EpisodeIn(user_id=user, occurred_at=AT, content=long_text(), source_ref="p-1"))
    hits = store.vector_search(PASSAGE, user, HashingEmbedder(DIM).embed_one(FACT), 50)
    assert len(hits) == len(spans(long_text()))
    assert {parse_id(h.id)[0] for h in hits} == {res.episode.id}  # type: ignore[index]


def test_an_embedded_graph_made_before_passages_gets_their_index_on_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from graphmem.store import falkor as falkor_store

    # the index path (a small user's search is exact and needs no index)
    monkeypatch.setattr(falkor_store, "EXACT_SCAN_MAX", -1)
    store = FalkorStore(tmp_path / "old", dim=DIM)
    store.open()
    try:
        plan = WritePlan(user_id="u", at=1)
        plan.episodes.append(NodeWrite("e1", {"id": "e1", "userId": "u", "content": "hi",
                                              "occurredAt": 1}, [0.1] * DIM))
        store.apply(plan)
        graph = store._handle(next(iter(store._exists)))
        graph.query("DROP VECTOR INDEX FOR (n:Passage) ON (n.embedding)")  # as before
        # the drop may still be under way in the server: wait until the index is gone
        deadline = time.monotonic() + 10
        while store.vector_index_dim("u", PASSAGE) is not None:
            assert time.monotonic() < deadline, "the Passage vector index was not dropped"
            time.sleep(0.05)
        with pytest.raises(GraphMemError):
            store.vector_search(PASSAGE, "u", [0.1] * DIM, 5)
    finally:
        store.close()
    store.open()
    try:
        assert store.vector_index_dim("u", PASSAGE) == DIM
        assert store.vector_search(PASSAGE, "u", [0.1] * DIM, 5) == []
    finally:
        store.close()


def test_passages_off_gives_one_vector_per_episode(
        store: Any, user: str, clock: FakeClock) -> None:
    with serve_api(make_service(store, clock, passages=False)) as api:
        eid = _add(api, user, "long-1", long_text())
        items = _recall(api, user)
        assert items[0]["id"] == eid and items[0]["passage"] is None  # found by its words
    assert store.vector_search(PASSAGE, user, HashingEmbedder(DIM).embed_one(FACT), 10) == []


def test_an_assistant_turn_states_nothing_of_the_user_s_with_the_i_left_out(
        store: Any, user: str) -> None:
    from graphmem.inputs import EpisodeIn

    text = ("Booked a table for eight at the harbour place. Took the scenic route to the "
            "station this morning.")
    service = make_service(store)
    ids = {role: service.add_episode(EpisodeIn(
        user_id=user, content=text, role=role, source_ref=role,
        occurred_at="2025-03-01T10:00:00Z")).episode.id for role in ("user", "assistant")}
    rows = store.export_nodes(PASSAGE, user, 0, 100)
    owners = [str(r["episodeId"]) for r in rows]
    assert owners.count(ids["user"]) == 2 and ids["assistant"] not in owners
