"""What was true then: a question about a personal fact in a time window ("Who did I report
to in March 2024?") is answered by the latest message stating that fact before the window
("My manager, Priya Raman, ...", said in January), which still held when March began
(``recall.order.valid_then_on_facet``)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from graphmem.inputs import EpisodeIn, RecallIn
from graphmem.model import MemoryKind
from graphmem.recall import Recaller
from graphmem.recall_model import DEFAULT_TUNING
from graphmem.service import MemoryService

from .api_support import Api, api  # noqa: F401  (the server fixture)

QUESTION = "Who did I report to in March 2024?"
ASKED_AT = datetime(2024, 7, 15, tzinfo=UTC)
OLDER = ("Can you help me with an email? My manager is Tom Berg and he likes them short.",
         "2023-10-02T09:00:00Z")
LATEST = ("I need a second pair of eyes on a client email. (Side note: my manager, Priya "
          "Raman, will read this before it goes out.)", "2024-01-29T21:00:00Z")
FILLER = ("Who do I even ask about the slow dashboard query, can you look at it?",
          "2024-03-12T10:00:00Z")
AFTER = ("Quick note for the planning doc: my manager is now Lena Vogel after the reorg.",
         "2024-05-20T10:00:00Z")


def _store(service: MemoryService, user: str, *said: tuple[str, str, str]) -> None:
    service.add_episodes([EpisodeIn(user_id=user, occurred_at=at, content=text,
                                    source_ref=ref) for ref, text, at in said])


def _order(service: MemoryService, user: str, then: bool, question: str = QUESTION) -> list[str]:
    recaller = Recaller(service.store, service.embedder.embed_one, None,
                        tuning=replace(DEFAULT_TUNING, facet_then=then,
                                       request_weight=0.0))  # the filler asks: kept as is
    res = recaller.recall(RecallIn(user, question, kinds=[MemoryKind.EPISODE],
                                   reference_time=ASKED_AT).validated(1000), service.clock())
    return [s.source_ref or "" for it in res.items for s in it.sources]


def test_the_latest_statement_before_the_window_answers_it(service: MemoryService,
                                                            user: str) -> None:
    _store(service, user, ("older", *OLDER), ("latest", *LATEST), ("filler", *FILLER))
    # valid then, above the message written in March and above the one it replaced
    assert _order(service, user, then=True) == ["latest", "filler", "older"]
    # the stage decides it: without it, the old manager first, and the message said in
    # the window above the one that answers
    assert _order(service, user, then=False) == ["older", "filler", "latest"]


def test_a_statement_after_the_window_earns_nothing(service: MemoryService, user: str) -> None:
    # said in May: who the user reported to in March is not what it says
    _store(service, user, ("after", *AFTER), ("filler", *FILLER))
    assert _order(service, user, then=True) == _order(service, user, then=False)


def test_someone_elses_fact_is_no_version_of_the_users(service: MemoryService,
                                                        user: str) -> None:
    sister = ("My sister Anna says her manager, Priya Raman, is strict.", LATEST[1])
    _store(service, user, ("sister", *sister), ("filler", *FILLER))
    assert _order(service, user, then=True) == _order(service, user, then=False)


def test_a_question_about_now_is_left_alone(service: MemoryService, user: str) -> None:
    _store(service, user, ("older", *OLDER), ("latest", *LATEST), ("filler", *FILLER))
    now = "Who do I report to now?"
    assert _order(service, user, True, now) == _order(service, user, False, now)


ADD = "mutation($ins: [EpisodeInput!]!) { addEpisodes(inputs: $ins) { duplicate } }"
RECALL = """query($i: RecallInput!) { recall(input: $i) {
  items { scores { temporal } sources { sourceRef } } } }"""


def test_through_the_server_with_the_other_user_apart(api: Api, user: str) -> None:  # noqa: F811
    other = f"{user}-other"
    for who in (user, other):
        api.data(ADD, {"ins": [
            {"userId": who, "occurredAt": at, "content": text, "sourceRef": f"{ref}-{who}"}
            for ref, (text, at) in (("latest", LATEST), ("filler", FILLER))]})
    out = api.data(RECALL, {"i": {"userId": user, "query": QUESTION, "kinds": ["EPISODE"],
                                  "referenceTime": "2024-07-15T00:00:00Z"}})["recall"]
    refs = [it["sources"][0]["sourceRef"] for it in out["items"]]
    assert refs == [f"latest-{user}", f"filler-{user}"]  # the other user's: never
    # said before the window, credited as inside it, as the message written in March
    assert out["items"][0]["scores"]["temporal"] == out["items"][1]["scores"]["temporal"] > 0
