"""A question about a fact of the user's is answered by something the user told: a message
that only asks the assistant something ("How do I clean a washing machine's filter?")
scores less than one that tells ("Our washing machine is a Bosch"), unless it names
something of the user's ("Can you recommend a vet for my cat Luna?")."""

from __future__ import annotations

from dataclasses import replace

import pytest

from graphmem._facets import tells_on_the_way
from graphmem._passages import states_anything
from graphmem.model import MemoryKind
from graphmem.recall import RecallItem, Scores
from graphmem.recall.order import demote_requests
from graphmem.service import MemoryService

from .test_recall_kin import (  # noqa: F401  (the MiniLM service fixture)
    T0,
    _items,
    _order,
    _say,
    _tuned,
    minilm_service,
)


@pytest.mark.parametrize(("text", "tells"), [
    ("How do I get rid of fruit flies in the kitchen?", False),
    ("Help me plan a budget-friendly day out in the city with two kids.", False),
    ("Explain the difference between TCP and UDP.", False),
    ("两周后有系统设计面试，我该怎么准备？", False),
    ("推荐三道半小时内能做好的素菜。", False),
    ("Our washing machine is a Bosch.", True),
    ("Quick question first. I take 10 mg of lisinopril. Anyway, what is stoicism?", True),
    ("Caught the 8:10 ferry this morning.", True),  # the "I" left out
    ("Can you recommend a vet for my cat Luna?", True),  # something of the user's named
    ("推荐几个适合我家孩子看的动画片？", True),
])
def test_what_tells_something_of_the_users(text: str, tells: bool) -> None:
    assert states_anything(text) is tells


def test_a_request_goes_below_what_was_told() -> None:
    items, rows = _items(("How do I clean a washing machine filter?", 9.0, 50, "user"),
                         ("Our washing machine is a Bosch.", 6.0, 1, "user"),
                         ("How do I clean a washing machine filter?", 5.0, 60, "assistant"))
    relation = RecallItem(MemoryKind.RELATION, "r0", "user uses Bosch", 8.0, Scores(),
                          occurred_at=T0)
    items.insert(1, relation)
    rows["r0"] = {"id": "r0", "statement": "user uses Bosch"}
    demote_requests(items, rows, 0.8, 100)
    assert [i.id for i in items] == ["r0", "e1", "e2", "e0"]  # the assistant's: its own weight
    assert [i.score for i in items] == [8.0, 6.0, 5.0, 1.8]
    before = [(i.id, i.score) for i in items]
    demote_requests(items, rows, 0.0, 100)  # off
    assert [(i.id, i.score) for i in items] == before


@pytest.mark.parametrize(("text", "tells"), [
    ("我这人从来不喝奶茶，但最近半夜特别想吃甜的，有什么健康点的夜宵推荐？", True),
    ("I never drink bubble tea, but lately I crave sweets at night, any snack ideas?", True),
    ("我们下周去成都，有什么好吃的？", True),
    ("我想问一下，有什么推荐？", False),  # only leads up to the question
    ("So I was wondering, what should I cook tonight?", False),
    ("How do I get rid of fruit flies in the kitchen?", False),
    ("Help me plan a day out with two kids.", False),  # no question at all
    ("I never drink bubble tea.", False),  # told, but not on the way to a question
    # "you" as whom the speaker told or thanks does not make a clause ask
    ("I told you I moved to Porto last month, so what do you think about gyms nearby?", True),
    ("I took your advice and joined the Striders, how often should I run?", True),
    ("我跟你说过我搬到杭州了，你觉得这边哪里好玩？", True),
    ("你知道我在杭州，帮我推荐一下？", False),  # 你知道 asks
    ("Do you know a good gym, the one near me closed?", False),
])
def test_a_question_may_tell_something_on_its_way(text: str, tells: bool) -> None:
    assert tells_on_the_way(text) is tells


def test_a_question_that_tells_on_its_way_is_not_taken_for_a_request() -> None:
    items, rows = _items(("有什么适合宝宝的辅食推荐？", 9.0, 50, "user"),
                         ("我这人从来不喝奶茶，但最近想吃甜的，有什么夜宵推荐？", 8.0, 40,
                          "user"))
    demote_requests(items, rows, 0.5, 100)
    assert [(i.id, i.score) for i in items] == [("e1", 8.0), ("e0", 4.5)]


def test_past_the_depth_nothing_changes() -> None:
    items, rows = _items(("Our washing machine is a Bosch.", 9.0, 1, "user"),
                         ("How do I clean a washing machine filter?", 6.0, 50, "user"))
    demote_requests(items, rows, 0.8, 1)
    assert [(i.id, i.score) for i in items] == [("e0", 9.0), ("e1", 6.0)]


def test_through_the_service(minilm_service: MemoryService) -> None:  # noqa: F811
    service, user = minilm_service, "requests-washer"
    told = _say(service, user, 0, "Some context: our washing machine at home is an old Bosch.")
    asked = _say(service, user, 40, "How do I clean the filter of a washing machine?")
    # this stage alone: none of the orders of a question about now after it, and neither
    # the washer facet's words in the search nor its lift (either puts the Bosch first)
    alone = replace(service._recaller.tuning, now_band=0.0, now_gap=0.0, facet_order=False,
                    version_depth=0, kin=False, successors=0, facet_lift=0.0,
                    facet_words=False)
    with _tuned(service, replace(alone, request_weight=0.0)):
        off = _order(service, user, "Which washing machine do I have?")
    with _tuned(service, replace(alone, request_weight=0.8)):
        on = _order(service, user, "Which washing machine do I have?")
        # a question that does not speak of the user is left alone
        other = _order(service, user, "Which washing machine is it?")
    assert off.index(asked) < off.index(told)  # by its words, the request leads
    assert on.index(told) < on.index(asked)
    assert other.index(asked) < other.index(told)


def test_we_and_i_of_colloquial_chinese_speak_of_the_user() -> None:
    from graphmem._passages import first_person
    assert first_person("咱店现在的地址是在哪儿来着？")
    assert first_person("俺家的狗叫大黄。")
    assert not first_person("店里现在一礼拜哪天关门？")
