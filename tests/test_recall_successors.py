"""A question about now: the latest later message of the user's that speaks of the same
thing as a best answer goes right above it, though it shares no word with the question and
says no word of change ("Mum's settling into her flat in Bath" above "My mother lives with
us in Leeds"); and the question forms that ask about now (a rate, a yes/no question about
what still holds)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from graphmem.inputs import RecallIn
from graphmem.model import MemoryKind
from graphmem.recall import RecallItem, Scores, asks_past
from graphmem.recall.analysis import Asked, about_now
from graphmem.recall.order import successors_first
from graphmem.service import MemoryService

from .api_support import make_service, serve_api
from .conftest import FakeClock
from .test_recall_kin import (  # noqa: F401  (the MiniLM service fixture)
    T0,
    _filler,
    _items,
    _order,
    _say,
    _tuned,
    _vectors,
    minilm_service,
)

HOME_OLD = "My mother lives with us in Leeds."
HOME_NEW = "Mum is settling into her flat in Bath nicely."
HOME_LATER = "Mum's flat in Bath has a view of the river."
OTHER = "Please suggest three dinners."
QUESTION = "Where does my mum live these days?"
ASKED = [1.0, 0.0, 0.0, 0.0]
# the two homes .6 apart, the other far from both and from the question
SPACE = {HOME_OLD: (1.0, 0.0, 0.0, 0.0), HOME_NEW: (0.6, 0.8, 0.0, 0.0),
         HOME_LATER: (0.7, 0.0, 0.0, 0.71), OTHER: (0.0, 0.0, 1.0, 0.0)}


def _ids(items: list[RecallItem]) -> list[str]:
    return [i.id for i in items]


def test_the_successor_goes_right_above_its_answer_each_place_keeping_its_score() -> None:
    items, rows = _items((HOME_OLD, 9.0, 1, "user"), (OTHER, 6.0, 50, "user"),
                         ("Tea is nice.", 5.0, 60, "user"), (HOME_NEW, 4.0, 90, "user"))
    successors_first(items, rows, QUESTION, ASKED, 1, 20, 0.5, 0.0, _vectors(SPACE))
    assert _ids(items) == ["e3", "e0", "e1", "e2"]  # the others one place down, in order
    assert [i.score for i in items] == [9.0, 6.0, 5.0, 4.0]


def test_the_latest_of_several_successors_goes_up() -> None:
    items, rows = _items((HOME_OLD, 9.0, 1, "user"), (HOME_LATER, 6.0, 95, "user"),
                         (OTHER, 5.0, 60, "user"), (HOME_NEW, 4.0, 90, "user"))
    successors_first(items, rows, QUESTION, ASKED, 1, 20, 0.5, 0.0, _vectors(SPACE))
    assert _ids(items)[:2] == ["e1", "e0"]


@pytest.mark.parametrize(("said", "least", "depth", "others"), [
    # not alike enough
    ([(HOME_OLD, 9.0, 1, "user"), (OTHER, 6.0, 50, "user"), (HOME_NEW, 4.0, 90, "user")],
     0.7, 20, frozenset()),
    # the assistant repeating or guessing says nothing of the user's
    ([(HOME_OLD, 9.0, 1, "user"), (OTHER, 6.0, 50, "user"), (HOME_NEW, 4.0, 90, "assistant")],
     0.5, 20, frozenset()),
    # the later message is about someone else
    ([(HOME_OLD, 9.0, 1, "user"), (OTHER, 6.0, 50, "user"), (HOME_NEW, 4.0, 90, "user")],
     0.5, 20, frozenset({"e2"})),
    # the alike message is older, not a successor
    ([(HOME_NEW, 9.0, 90, "user"), (OTHER, 6.0, 50, "user"), (HOME_OLD, 4.0, 1, "user")],
     0.5, 20, frozenset()),
    # past the depth
    ([(HOME_OLD, 9.0, 1, "user"), (OTHER, 6.0, 50, "user"), (HOME_NEW, 4.0, 90, "user")],
     0.5, 2, frozenset()),
])
def test_no_successor_no_change(said: list[tuple[str, float, int, str]], least: float,
                                depth: int, others: frozenset[str]) -> None:
    items, rows = _items(*said)
    before = _ids(items)
    successors_first(items, rows, QUESTION, ASKED, 2, depth, least, 0.0, _vectors(SPACE),
                     others=others)
    assert _ids(items) == before


def test_a_message_said_minutes_after_the_answer_goes_on_with_it() -> None:
    # "Rent is now $495 a week." then "Car insurance is $98 a month.": one account, said in
    # a row; the same message a day later is a successor
    for later, moved in ((timedelta(minutes=5), False), (timedelta(days=1), True)):
        items, rows = _items((HOME_OLD, 9.0, 1, "user"), (OTHER, 6.0, 50, "user"),
                             (HOME_NEW, 4.0, 1, "user"))
        items[2].occurred_at = items[0].occurred_at + later
        successors_first(items, rows, QUESTION, ASKED, 1, 20, 0.5, 0.0, _vectors(SPACE))
        assert (_ids(items)[0] == "e2") is moved


def test_a_likeness_far_from_the_question_moves_nothing() -> None:
    # alike the answer (.7), but .26 from the question where the answer is .6 from it
    aside = "My mother's sister lives in York."
    table = {**SPACE, aside: (0.7, 0.5, -0.2, 0.47)}
    asked = [0.6, 0.0, 0.8, 0.0]
    items, rows = _items((HOME_OLD, 9.0, 1, "user"), (OTHER, 6.0, 50, "user"),
                         (aside, 4.0, 90, "user"))
    successors_first(items, rows, QUESTION, asked, 2, 20, 0.5, 0.5, _vectors(table))
    assert _ids(items) == ["e0", "e1", "e2"]
    successors_first(items, rows, QUESTION, asked, 2, 20, 0.5, 0.3, _vectors(table))
    assert _ids(items) == ["e2", "e0", "e1"]


def test_a_successor_closer_to_another_message_is_that_ones() -> None:
    # the later message is alike the answer (.6) but closer still to a third message
    # (.84): with ``nearest`` it succeeds that one, not the answer
    third = "Mum's sister has a flat in Bath too."
    table = {**SPACE, third: (0.2, 0.9, 0.0, 0.39)}
    said = ((HOME_OLD, 9.0, 1, "user"), (third, 6.0, 50, "user"), (HOME_NEW, 4.0, 90, "user"))
    items, rows = _items(*said)
    successors_first(items, rows, QUESTION, ASKED, 1, 20, 0.5, 0.0, _vectors(table),
                     nearest=True)
    assert _ids(items) == ["e0", "e1", "e2"]
    items, rows = _items(*said)
    successors_first(items, rows, QUESTION, ASKED, 1, 20, 0.5, 0.0, _vectors(table))
    assert _ids(items) == ["e2", "e0", "e1"]


def test_a_sentence_both_share_is_a_template_not_a_likeness() -> None:
    opener = "Quick question about something else first."
    table = {**SPACE, opener: (0.0, 0.0, 0.0, 1.0), "Lunch was great.": (0.0, 0.0, 1.0, 0.2)}
    items, rows = _items((f"{opener} {HOME_OLD}", 9.0, 1, "user"),
                         (f"{opener} Lunch was great.", 4.0, 90, "user"))
    successors_first(items, rows, QUESTION, ASKED, 2, 20, 0.5, 0.0, _vectors(table))
    assert _ids(items) == ["e0", "e1"]


def test_the_successor_goes_above_the_relations_read_from_the_answer_too() -> None:
    items, rows = _items((HOME_OLD, 9.0, 1, "user"), (OTHER, 6.0, 50, "user"),
                         (HOME_NEW, 4.0, 90, "user"))
    relation = RecallItem(MemoryKind.RELATION, "r0", "mother lives in Leeds", 12.0, Scores(),
                          occurred_at=T0)
    items.insert(0, relation)
    rows["r0"] = {"id": "r0", "statement": "mother lives in Leeds"}
    successors_first(items, rows, QUESTION, ASKED, 2, 20, 0.5, 0.0, _vectors(SPACE),
                     sources={"r0": rows["e0"]})
    assert _ids(items) == ["e2", "r0", "e0", "e1"]
    assert [i.score for i in items] == [12.0, 9.0, 6.0, 4.0]


# ------------------------------------------------------------- the question's form


@pytest.mark.parametrize(("question", "past"), [
    ("我的降糖药一天要吃几次？", False),
    ("我每周去几次健身房？", False),
    ("How often do I water the ferns?", False),
    ("How many times a week do I swim?", False),
    ("How often am I supposed to do my rehab workouts?", False),
    # counting what happened stays a question about the past
    ("我说过几次去游泳？", True),
    ("How many times have I mentioned going swimming?", True),
    ("How often did I go to the gym in May?", True),
    # someone else's habit: every time it was told
    ("How often does Melanie go to the beach with her kids?", True),
])
def test_a_rate_asks_about_now(question: str, past: bool) -> None:
    assert asks_past(question) is past


@pytest.mark.parametrize(("question", "now"), [
    ("Is my father still working, or what is he up to?", True),
    ("Do I still take the 10 mg tablets?", True),
    ("我现在还在吃优甲乐吗？", True),
    ("Is my father a train driver?", False),  # a claim to check: every side matters
    ("Would Caroline still want to pursue counseling?", False),  # not the user's
    ("Have I ever used Rust?", False),
])
def test_a_yes_no_question_about_what_still_holds_asks_about_now(question: str,
                                                                now: bool) -> None:
    q = RecallIn("u", question)
    a = Asked(window=None, known_at=0, as_of=None, kinds=[MemoryKind.EPISODE], when=False,
              cand=40, names=[], search=question, words=question, looked_for=question)
    assert about_now(q, a) is now


# ------------------------------------------------------------- through the service, MiniLM


def test_a_trip_said_by_its_sense_comes_first(minilm_service: MemoryService) -> None:  # noqa: F811
    service, user = minilm_service, "succ-trip"
    old = _say(service, user, 0, "Quick question first. For our anniversary in October we are "
                                 "flying to Lisbon for a week. Anyway, how do I boil an egg?")
    _filler(service, user)
    new = _say(service, user, 90, "How do I get rid of fruit flies in the kitchen? (Unrelated: "
                                  "the October anniversary week is booked in Kyoto, and "
                                  "Lisbon can wait until next year.)")
    question = "Where are we going for our anniversary trip?"
    # this stage alone: no band, no standouts, no facet stages, no versions, no kin
    alone = replace(service._recaller.tuning, now_band=0.0, now_gap=0.0, facet_order=False,
                    facet_lift=0.0, version_depth=0, kin=False)
    with _tuned(service, replace(alone, successors=0)):
        off = _order(service, user, question)
    with _tuned(service, alone):
        on = _order(service, user, question)
        # a question about a time past keeps the order by score, and so does one that
        # does not speak of the user
        kept = {other: _order(service, user, other)
                for other in ("Where did we plan to go for our anniversary in January 2024?",
                              "Where is the anniversary trip going?")}
    assert off.index(old) < off.index(new)  # by score, Lisbon leads
    assert on.index(new) < on.index(old)
    assert set(on) == set(off)
    for other, order in kept.items():
        assert order.index(old) < order.index(new), other


ADD = """mutation($ins: [EpisodeInput!]!) { addEpisodes(inputs: $ins) { duplicate } }"""
RECALL = """query($i: RecallInput!) { recall(input: $i) {
  items { sources { sourceRef } } } }"""


def test_through_the_server_with_the_other_user_apart(store: Any, clock: FakeClock,
                                                      user: str) -> None:
    other = f"{user}-other"
    said = (("old", "Our washing machine is a Bosch and it rattles on the spin cycle.",
             "2024-01-05T09:00:00Z"),
            ("filler", "Please suggest three dinners for the week.", "2024-02-05T09:00:00Z"),
            ("new", "Our washing machine is a Miele and it hums on the spin cycle.",
             "2024-04-05T09:00:00Z"))
    service = make_service(store, clock)
    # this stage alone: no band, no standouts, no facet stages, no versions, no kin
    alone = replace(service._recaller.tuning, now_band=0.0, now_gap=0.0, facet_order=False,
                    facet_lift=0.0, version_depth=0, kin=False)
    with serve_api(service) as api:
        for who in (other, user):
            api.data(ADD, {"ins": [{"userId": who, "occurredAt": at, "content": text,
                                    "role": "user", "sourceRef": f"{ref}-{who}"}
                                   for ref, text, at in said]})
        order = {}
        for name, tuning in (("on", alone), ("off", replace(alone, successors=0))):
            service._recaller.tuning = tuning
            out = api.data(RECALL, {"i": {
                "userId": user, "query": "Which Bosch washing machine do we have?",
                "kinds": ["EPISODE"], "referenceTime": "2024-05-01T00:00:00Z"}})["recall"]
            order[name] = [it["sources"][0]["sourceRef"] for it in out["items"]]
    for refs in order.values():  # the other user's: never
        assert refs and all(r.endswith(f"-{user}") and not r.endswith("-other") for r in refs)
    assert order["off"].index(f"old-{user}") < order["off"].index(f"new-{user}")
    assert order["on"].index(f"new-{user}") < order["on"].index(f"old-{user}")
