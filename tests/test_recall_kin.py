"""A question about now in the first person: of two of the user's messages that are each
other's closest in meaning, the newer one naming something the older does not is a new
version of the same fact, and goes first, though it shares no word with the older one or
the question and says no word of change ("Charging the Kia overnight..." after "I drive a
Ford Fiesta"). Someone else's facts ("My sister Anna lives in Berlin") are no version of
the user's."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graphmem._facets import facets_of, kin_of, of_another, of_kin, on_facet
from graphmem.embed import MiniLMEmbedder
from graphmem.inputs import EpisodeIn, RecallIn
from graphmem.model import MemoryKind
from graphmem.recall import newer_kin_first
from graphmem.recall_model import RecallItem, RecallTuning, Scores
from graphmem.service import MemoryService
from graphmem.settings import Settings
from graphmem.store.base import Row
from graphmem.store.falkor import FalkorStore

T0 = datetime(2024, 1, 10, 9, 0, tzinfo=UTC)


def _vectors(table: dict[str, tuple[float, ...]]):  # type: ignore[no-untyped-def]
    """An embedder over fixed vectors: each sentence's own (unknown ones far from all)."""
    def embed(texts: list[str]) -> list[list[float]]:
        out = []
        for t in texts:
            vec = table.get(t, (0.0, 0.0, 0.0, 1.0))
            norm = math.sqrt(sum(x * x for x in vec))
            out.append([x / norm for x in vec])
        return out
    return embed


def _items(*said: tuple[str, float, int, str]) -> tuple[list[RecallItem], dict[str, Row]]:
    """(content, score, day, role) per episode, best first."""
    items, rows = [], {}
    for n, (content, score, day, role) in enumerate(said):
        items.append(RecallItem(MemoryKind.EPISODE, f"e{n}", content, score, Scores(),
                                occurred_at=T0 + timedelta(days=day)))
        rows[f"e{n}"] = {"id": f"e{n}", "content": content, "role": role}
    return items, rows


CAR_OLD = "I drive a silver Ford Fiesta."
CAR_NEW = "Charging the Kia EV6 overnight is cheap."
OTHER = "Please suggest three dinners."
CAR_Q = "What car do I drive now?"
ASKED = [1.0, 1.0, 0.0, 0.0]  # the question's vector: near both cars' sentences
# the two cars' sentences .61 apart, the rest far from both
SPACE = {CAR_OLD: (1.0, 0.2, 0.0, 0.0), CAR_NEW: (0.5, 1.0, 0.0, 0.0),
         OTHER: (0.0, 0.0, 1.0, 0.0)}


def test_the_newer_of_two_closest_messages_goes_first_in_their_places() -> None:
    items, rows = _items((CAR_OLD, 9.0, 1, "user"), (OTHER, 6.0, 50, "user"),
                         (CAR_NEW, 4.0, 90, "user"))
    newer_kin_first(items, rows, CAR_Q, ASKED, 8, 0.5, _vectors(SPACE))
    assert [i.id for i in items] == ["e2", "e1", "e0"]
    assert [i.score for i in items] == [9.0, 6.0, 4.0]  # each place keeps its score


@pytest.mark.parametrize(("said", "least"), [
    # the same topic again, naming nothing new: no new version
    ([(CAR_OLD, 9.0, 1, "user"), (OTHER, 6.0, 50, "user"),
      ("Still driving the Ford Fiesta to work.", 4.0, 90, "user")], 0.5),
    # not close enough
    ([(CAR_OLD, 9.0, 1, "user"), (OTHER, 6.0, 50, "user"), (CAR_NEW, 4.0, 90, "user")], 0.99),
    # the assistant repeating a value back says nothing of the user's
    ([(CAR_OLD, 9.0, 1, "user"), (OTHER, 6.0, 50, "user"), (CAR_NEW, 4.0, 90, "assistant")],
     0.5),
    # the newer is already first
    ([(CAR_NEW, 9.0, 90, "user"), (OTHER, 6.0, 50, "user"), (CAR_OLD, 4.0, 1, "user")], 0.5),
])
def test_no_new_version_no_change(said: list[tuple[str, float, int, str]],
                                  least: float) -> None:
    items, rows = _items(*said)
    table = {**SPACE, "Still driving the Ford Fiesta to work.": (1.0, 0.6, 0.0, 0.0)}
    before = [i.id for i in items]
    newer_kin_first(items, rows, CAR_Q, ASKED, 8, least, _vectors(table))
    assert [i.id for i in items] == before


def test_only_each_others_closest_are_versions() -> None:
    # the new car message is closer to a third message than to the old one: no pair
    third = "My Kia EV6 came with a home charger."
    table = {**SPACE, third: (0.0, 1.0, 0.3, 0.0)}  # .86 from the new, .19 from the old
    items, rows = _items((CAR_OLD, 9.0, 1, "user"), (third, 6.0, 95, "user"),
                         (CAR_NEW, 4.0, 90, "user"))
    newer_kin_first(items, rows, CAR_Q, ASKED, 8, 0.5, _vectors(table))
    # CAR_NEW and the third are each other's closest: the third is newer and above already
    assert [i.id for i in items] == ["e0", "e1", "e2"]


def test_a_sentence_both_share_is_a_template_not_a_likeness() -> None:
    # both open with the same words and say the rest far apart: no likeness between them
    opener = "Quick question about something else first."
    table = {**SPACE, opener: (0.0, 1.0, 0.0, 0.0), "I live in Leeds.": (0.0, 0.0, 0.0, 1.0),
             "Lunch was great at Nando's.": (0.0, 0.0, 1.0, 0.1)}
    items, rows = _items((f"{opener} I live in Leeds.", 9.0, 1, "user"),
                         (f"{opener} Lunch was great at Nando's.", 4.0, 90, "user"))
    newer_kin_first(items, rows, CAR_Q, ASKED, 8, 0.5, _vectors(table))
    assert [i.id for i in items] == ["e0", "e1"]


def test_each_answers_with_its_statement_closest_to_the_question() -> None:
    # each message opens with something else; what each answers about the car is its car
    # sentence, and those two are close (the openings are not)
    lunch, tea = "Lunch was at Nando's.", "Tea is nice."
    table = {**SPACE, lunch: (0.0, 0.0, 0.6, 0.8), tea: (0.0, 0.0, 0.0, 1.0)}
    items, rows = _items((f"{OTHER} {CAR_OLD}", 9.0, 1, "user"), (tea, 6.0, 50, "user"),
                         (f"{lunch} {CAR_NEW}", 4.0, 90, "user"))
    newer_kin_first(items, rows, CAR_Q, ASKED, 8, 0.5, _vectors(table))
    assert [i.id for i in items] == ["e2", "e1", "e0"]


def test_a_later_fact_of_the_same_form_far_from_the_question_is_no_version() -> None:
    # the book is the tea's closest, but two answers fit the question better than it
    tea, seats, book = "I love green tea.", "I prefer window seats.", "My favourite book is Dune."
    table = {tea: (1.0, 0.0, 0.2, 0.0), seats: (0.0, 0.0, 1.0, 0.0), book: (1.0, 1.0, -0.3, 0.0)}
    items, rows = _items((tea, 9.0, 1, "user"), (seats, 6.0, 50, "user"), (book, 4.0, 90, "user"))
    newer_kin_first(items, rows, "What tea do I like?", [1.0, 0.0, 1.0, 0.0], 8, 0.5,
                    _vectors(table))
    assert [i.id for i in items] == ["e0", "e1", "e2"]


def test_past_the_depth_nothing_moves() -> None:
    items, rows = _items((CAR_OLD, 9.0, 1, "user"), (OTHER, 6.0, 50, "user"),
                         (CAR_NEW, 4.0, 90, "user"))
    newer_kin_first(items, rows, CAR_Q, ASKED, 2, 0.5, _vectors(SPACE))
    assert [i.id for i in items] == ["e0", "e1", "e2"]


def test_chinese_takes_no_part_with_an_english_embedder() -> None:
    old, new = "我开的是一辆大众朗逸。", "比亚迪汉充一次电能跑605公里。"
    table = {old: SPACE[CAR_OLD], new: SPACE[CAR_NEW]}
    items, rows = _items((old, 9.0, 1, "user"), (OTHER, 6.0, 50, "user"),
                         (new, 4.0, 90, "user"))
    newer_kin_first(items, rows, CAR_Q, ASKED, 8, 0.5, _vectors(table), reads_cjk=False)
    assert [i.id for i in items] == ["e0", "e1", "e2"]
    newer_kin_first(items, rows, CAR_Q, ASKED, 8, 0.5, _vectors(table), reads_cjk=True)
    assert [i.id for i in items] == ["e2", "e1", "e0"]


# ------------------------------------------------------------- through the service, MiniLM


@pytest.fixture(scope="module")
def minilm_service(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    store = FalkorStore(Path(tmp_path_factory.mktemp("kin")), dim=384)
    store.open()
    service = MemoryService(Settings(embedder="minilm"), store, MiniLMEmbedder())
    yield service
    store.close()


def _say(service: MemoryService, user: str, day: int, text: str) -> str:
    return service.add_episode(EpisodeIn(user_id=user, occurred_at=T0 + timedelta(days=day),
                                         content=text, role="user")).episode.id


def _filler(service: MemoryService, user: str) -> None:
    """Four requests that tell nothing, on days 10 to 40."""
    for day, text in ((10, "Can you suggest a good book about gardening?"),
                      (20, "Please draft a polite email declining a meeting."),
                      (30, "What is a good stretching routine after work?"),
                      (40, "Give me a packing list for a weekend of camping.")):
        _say(service, user, day, text)


@contextmanager
def _tuned(service: MemoryService, tuning: RecallTuning) -> Iterator[None]:
    """Recall with ``tuning`` inside the block, the service's own again after it."""
    kept = service._recaller.tuning
    service._recaller.tuning = tuning
    try:
        yield
    finally:
        service._recaller.tuning = kept


def _order(service: MemoryService, user: str, query: str) -> list[str]:
    got = service.recall(RecallIn(user_id=user, query=query, limit=10,
                                  kinds=[MemoryKind.EPISODE],
                                  reference_time=T0 + timedelta(days=100)))
    return [i.id for i in got.items]


def test_a_new_tablet_said_in_passing_comes_first(minilm_service: MemoryService) -> None:
    service, user = minilm_service, "kin-tablet"
    old = _say(service, user, 0, "Quick question first. I do all my sketching on an old iPad "
                                 "Air with the first Apple Pencil. Anyway, how do I boil an egg?")
    _filler(service, user)
    new = _say(service, user, 90, "How do I get rid of fruit flies in the kitchen? (Unrelated: "
                                  "upgraded to a Galaxy Tab S9 for drawing, and the S Pen "
                                  "that came in the box is lovely.)")
    question = "Which tablet do I use for my artwork now?"
    # this stage alone: no band, no standouts, no facet order or lift, no newer versions,
    # no successors
    alone = replace(service._recaller.tuning, now_band=0.0, now_gap=0.0, facet_order=False,
                    facet_lift=0.0, version_depth=0, successors=0)
    with _tuned(service, replace(alone, kin=False)):
        off = _order(service, user, question)
    with _tuned(service, alone):
        on = _order(service, user, question)
    assert off.index(old) < off.index(new)  # by score, the iPad leads
    assert on.index(new) < on.index(old)
    assert set(on) == set(off)
    # a question about a time past keeps the order by score
    past = _order(service, user, "Which tablet did I use for my artwork in January 2024?")
    assert past.index(old) < past.index(new)


def test_an_english_model_says_it_reads_no_chinese() -> None:
    from graphmem.embed import CachedEmbedder, HashingEmbedder, reads_cjk
    assert not reads_cjk(CachedEmbedder(MiniLMEmbedder()))
    assert reads_cjk(HashingEmbedder(64))


def test_distinct_facts_of_one_form_are_no_versions(minilm_service: MemoryService) -> None:
    # a profile: one fact a message, each said once; every question's own fact stays first
    service, user = minilm_service, "kin-profile"
    facts = ["I love green tea in the morning.", "My cat is called Doudou.",
             "I moved to Lisbon last spring.", "I work at Northwind Labs as a data engineer.",
             "My sister Anna lives in Berlin.", "I started learning the cello in January.",
             "I use Neovim for all my coding.", "My favourite book is The Left Hand of Darkness.",
             "I am allergic to peanuts.", "I prefer window seats on long flights."]
    ids = [_say(service, user, 5 * n, text) for n, text in enumerate(facts)]
    for question, fact in (("What tea do I like to drink now?", 0),
                           ("What is my cat called these days?", 1),
                           ("Which instrument am I learning at the moment?", 5),
                           # the sister's home is newer, and no version of the user's
                           ("Where do I live now?", 2),
                           ("Where does my sister Anna live now?", 4),
                           ("Which editor do I use for coding now?", 6),
                           ("What is my favourite book?", 7),
                           ("What am I allergic to?", 8)):
        assert _order(service, user, question)[0] == ids[fact], question


@pytest.mark.parametrize(("text", "who"), [
    ("My sister Anna lives in Berlin.", "sister"),
    ("By the way, my older brother moved to Oslo.", "brother"),
    ("Side note: My mum lives in Leeds.", "mother"),
    ("(Unrelated: our kids switched to Oakridge.)", "kids"),
    ("我妈妈在老家开了个小超市。", "mother"),
    ("我爸妈搬到了上海。", "parents"),
    ("I visited my sister in Rome.", None),  # the user's own doing
    ("I moved to Lisbon.", None),
    ("我朋友圈里都在晒新手机。", None),  # a feed, not a friend
    # a gift to the user is the user's now
    ("Also, my brother got me a Pixel 8a for Christmas.", None),
    ("My sister Anna just gave me her old Honda Civic.", None),
    ("我妈送了我一台Kindle。", None),
    ("My dad got a new car.", "father"),
])
def test_who_a_sentence_is_about(text: str, who: str | None) -> None:
    assert kin_of(text, subject=True) == who


def test_a_fact_of_someone_close_is_no_fact_of_the_users() -> None:
    home = facets_of("Where do I live now?")
    assert kin_of("Where does my sister Anna live now?") == "sister"
    assert kin_of("Where do I live now?") is None
    assert not on_facet("My sister Anna lives in Berlin.", home)
    assert on_facet("My sister Anna lives in Berlin.", home, "sister")
    assert on_facet("I moved to Lisbon last spring.", home)
    assert of_another("My sister Anna lives in Berlin. My brother lives in Rome.")
    assert not of_another("My sister Anna lives in Berlin.", "sister")
    assert not of_another("My sister lives in Berlin. I moved to Lisbon.")


@pytest.mark.parametrize(("question", "facets"), [
    ("我老公是做什么工作的来着？", ["role"]),
    ("What does my husband do for a living?", ["role"]),
    ("What is my son's school called?", ["study"]),
    ("我老公叫什么？", ["partner"]),  # who he is: the only fact named
    ("Where does my sister live now?", ["home"]),
])
def test_a_question_about_someone_close_asks_about_their_fact_not_who_they_are(
        question: str, facets: list[str]) -> None:
    assert [f.name for f in of_kin(facets_of(question), kin_of(question))] == facets
