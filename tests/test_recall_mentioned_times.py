"""A question's time window also reaches the messages that name a time inside it: "our
camping trip last year", said in June 2023, tells of 2022, and answers "what did we see on
the camping trip last year?" asked in October 2023 (``timeparse.mentioned_periods``)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from graphmem.inputs import EpisodeIn, RecallIn
from graphmem.model import MemoryKind
from graphmem.recall import Recaller
from graphmem.recall.items import _tells_of
from graphmem.recall_model import DEFAULT_TUNING
from graphmem.service import MemoryService
from graphmem.timeparse import mentioned_periods, read_told_of

from .api_support import Api, api  # noqa: F401  (the server fixture)

SAID = datetime(2023, 4, 20, 15, 0, tzinfo=UTC)


def days(text: str, said: datetime = SAID) -> list[tuple[str, str]]:
    return [(a.date().isoformat(), b.date().isoformat()) for a, b in mentioned_periods(text, said)]


@pytest.mark.parametrize(("text", "periods"), [
    ("My colleagues and I went to a convention together last month.",
     [("2023-03-01", "2023-04-01")]),
    ("Our camping trip last year was the best.", [("2022-01-01", "2023-01-01")]),
    ("Two weeks ago I adopted a pup.", [("2023-04-03", "2023-04-10")]),
    ("我上个月去了杭州。", [("2023-03-01", "2023-04-01")]),
    # the longest phrase only: "March 2023" is not also the whole of 2023
    ("I went in March 2023, and once in 2021.",
     [("2023-03-01", "2023-04-01"), ("2021-01-01", "2022-01-01")]),
    # open or vague: no period
    ("Before 2020 I lived in Porto, and recently I've been cooking more.", []),
    ("Since May I have been running.", []),
    ("Nothing about time here.", []),
])
def test_the_periods_a_message_names(text: str, periods: list[tuple[str, str]]) -> None:
    assert days(text) == periods


def test_periods_are_read_at_the_time_the_message_was_said() -> None:
    assert days("last year", datetime(2021, 2, 1, tzinfo=UTC)) == [("2020-01-01", "2021-01-01")]
    assert days("last year", datetime(2021, 2, 1)) == [("2020-01-01", "2021-01-01")]  # naive


TOLD_OF = "I'll always remember our camping trip last year, we saw the Perseid meteor shower."
DISTRACTOR = ("Camping trip planning again: the camping trip gear, the camping trip food, "
              "the camping trip tent, we saw the forecast.")
QUESTION = "What did we see on the camping trip last year?"
ASKED_AT = datetime(2023, 10, 1, tzinfo=UTC)


def _store_both(service: MemoryService, user: str) -> None:
    # both said in 2023; only the first speaks of 2022
    service.add_episodes([
        EpisodeIn(user_id=user, occurred_at="2023-06-01T10:00:00Z", content=TOLD_OF,
                  source_ref="told-of"),
        EpisodeIn(user_id=user, occurred_at="2023-06-05T10:00:00Z", content=DISTRACTOR,
                  source_ref="distractor")])


def _order(service: MemoryService, user: str, mentioned: bool) -> list[str]:
    recaller = Recaller(service.store, service.embedder.embed_one, None,
                        tuning=replace(DEFAULT_TUNING, mentioned_times=mentioned))
    res = recaller.recall(RecallIn(user, QUESTION, kinds=[MemoryKind.EPISODE],
                                   reference_time=ASKED_AT).validated(1000), service.clock())
    return [s.source_ref or "" for it in res.items for s in it.sources]


def test_a_message_telling_of_the_window_comes_first(service: MemoryService, user: str) -> None:
    _store_both(service, user)
    assert _order(service, user, mentioned=True)[:2] == ["told-of", "distractor"]
    # the stage decides it: without it, the message richer in the question's words wins
    assert _order(service, user, mentioned=False)[:2] == ["distractor", "told-of"]


def test_a_period_outside_the_window_earns_nothing(service: MemoryService, user: str) -> None:
    # "last month" said in June 2023 is May 2023: not in last year's window
    service.add_episodes([
        EpisodeIn(user_id=user, occurred_at="2023-06-01T10:00:00Z", content=TOLD_OF.replace(
            "last year", "last month"), source_ref="told-of"),
        EpisodeIn(user_id=user, occurred_at="2023-06-05T10:00:00Z", content=DISTRACTOR,
                  source_ref="distractor")])
    assert _order(service, user, mentioned=True)[:2] == ["distractor", "told-of"]


ADD = "mutation($ins: [EpisodeInput!]!) { addEpisodes(inputs: $ins) { duplicate } }"
RECALL = """query($i: RecallInput!) { recall(input: $i) {
  temporalWindow { start end }
  items { kind scores { temporal } sources { sourceRef } } } }"""


def test_through_the_server_with_the_other_user_apart(api: Api, user: str) -> None:  # noqa: F811
    other = f"{user}-other"
    for who in (user, other):
        api.data(ADD, {"ins": [
            {"userId": who, "occurredAt": "2023-06-01T10:00:00Z", "content": TOLD_OF,
             "sourceRef": f"told-of-{who}"},
            {"userId": who, "occurredAt": "2023-06-05T10:00:00Z", "content": DISTRACTOR,
             "sourceRef": f"distractor-{who}"}]})
    out = api.data(RECALL, {"i": {"userId": user, "query": QUESTION, "kinds": ["EPISODE"],
                                  "referenceTime": "2023-10-01T00:00:00Z"}})["recall"]
    assert out["temporalWindow"]["start"].startswith("2022-01-01")
    refs = [it["sources"][0]["sourceRef"] for it in out["items"]]
    assert refs == [f"told-of-{user}", f"distractor-{user}"]  # the other user's: never
    temporal = [it["scores"]["temporal"] for it in out["items"]]
    assert temporal[0] > 0 > temporal[1]  # inside the window; said after it


def test_a_longer_period_is_no_message_about_the_window(service: MemoryService,
                                                         user: str) -> None:
    # "this year" said in June 2023 is the whole of 2023: it says nothing about March
    service.add_episodes([
        EpisodeIn(user_id=user, occurred_at="2023-06-01T10:00:00Z",
                  content="The budget is tight this year, my rent is what worries me.",
                  source_ref="this-year"),
        EpisodeIn(user_id=user, occurred_at="2023-03-10T10:00:00Z",
                  content="Paid the landlord today, nothing else new.", source_ref="march")])
    recaller = Recaller(service.store, service.embedder.embed_one, None)
    res = recaller.recall(RecallIn(user, "What was my rent in March 2023?",
                                   kinds=[MemoryKind.EPISODE],
                                   reference_time=ASKED_AT).validated(1000), service.clock())
    temporal = {s.source_ref: it.scores.temporal for it in res.items for s in it.sources}
    assert temporal["march"] > 0 > temporal["this-year"]


def test_the_periods_are_written_with_the_episode(service: MemoryService, user: str) -> None:
    _store_both(service, user)
    _, ids = service.store.page_episodes(user, session_id=None, with_forgotten=False,
                                         offset=0, limit=10)
    rows = {r["sourceRef"]: r for r in service.store.nodes("Episode", user, ids)}
    assert read_told_of(rows["told-of"]["toldOf"]) == [
        (int(datetime(2022, 1, 1, tzinfo=UTC).timestamp() * 1000),
         int(datetime(2023, 1, 1, tzinfo=UTC).timestamp() * 1000))]
    assert rows["distractor"]["toldOf"] == ""  # none named, and known to be none


def test_an_episode_stored_without_them_is_read_from_its_words() -> None:
    said = int(datetime(2023, 6, 1, tzinfo=UTC).timestamp() * 1000)
    start = int(datetime(2022, 1, 1, tzinfo=UTC).timestamp() * 1000)
    end = int(datetime(2023, 1, 1, tzinfo=UTC).timestamp() * 1000)
    legacy = {"content": TOLD_OF}
    assert _tells_of(legacy, said, start, end)
    # the stored value is what counts when there is one; a malformed part is no period
    assert not _tells_of({**legacy, "toldOf": ""}, said, start, end)
    assert _tells_of({"content": "", "toldOf": f"x:y;{start}:{end}"}, said, start, end)
