"""A question about now puts the newest of the messages that answer it about equally well,
or that state something on the personal fact it asks about, first, with or without a
version link between them; questions about the past, about a time window, about
experience or counts, and yes/no questions keep the ranking by score."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from graphmem._facets import facets_of, on_facet, synonyms
from graphmem.inputs import EpisodeIn, RecallIn
from graphmem.model import MemoryKind
from graphmem.recall import (
    asks_past,
    asks_yes_no,
    newest_first_among_equals,
    newest_first_among_standouts,
)
from graphmem.recall_model import DEFAULT_TUNING, RecallItem, Scores
from graphmem.service import MemoryService

T0 = datetime(2024, 1, 10, 9, 0, tzinfo=UTC)


def item(n: int, score: float, day: int, kind: MemoryKind = MemoryKind.EPISODE) -> RecallItem:
    return RecallItem(kind, f"i{n}", f"text {n}", score, Scores(),
                      occurred_at=T0 + timedelta(days=day))


def test_strong_episodes_come_newest_first_in_their_places() -> None:
    items = [item(0, 10.0, 1), item(1, 9.0, 30, MemoryKind.RELATION), item(2, 8.0, 20),
             item(3, 7.0, 40), item(4, 3.0, 90), item(5, 2.0, 99)]
    newest_first_among_equals(items, 0.6, 5)
    # i0, i2, i3 score >= 6: newest first in places 0, 2, 3; the relation stays at 1; i4
    # (weak) and i5 (beyond the depth) stay
    assert [i.id for i in items] == ["i3", "i1", "i2", "i0", "i4", "i5"]
    assert [i.score for i in items] == [10.0, 9.0, 8.0, 7.0, 3.0, 2.0]  # still sorted


def test_one_strong_episode_changes_nothing() -> None:
    items = [item(0, 10.0, 1), item(1, 2.0, 50)]
    newest_first_among_equals(items, 0.6, 10)
    assert [i.id for i in items] == ["i0", "i1"]


def test_two_standouts_come_newest_first() -> None:
    # the old version matches the question's words twice as well as the new one, and both
    # stand far above the rest: newest first, a relation between them keeps its place
    items = [item(0, 30.0, 1), item(1, 20.0, 50, MemoryKind.RELATION), item(2, 14.0, 90),
             item(3, 7.0, 95), item(4, 6.5, 99)]
    newest_first_among_standouts(items, 1.5, 0.3, 3, 20)
    assert [i.id for i in items] == ["i2", "i1", "i0", "i3", "i4"]
    assert [i.score for i in items] == [30.0, 20.0, 14.0, 7.0, 6.5]


@pytest.mark.parametrize(("scores", "moved"), [
    ((30.0, 14.0, 11.0, 10.0), False),  # no gap after the second or third
    ((30.0, 8.0, 3.0), False),  # the second is far below the best: no answer of its own
    ((30.0, 14.0, 13.0, 5.0), True),  # three stand out: the newest of them first
    ((30.0, 14.0), False),  # nothing after them to stand apart from
])
def test_standouts_need_a_gap_and_a_floor(scores: tuple[float, ...], moved: bool) -> None:
    # the later an item's index, the newer it is
    items = [item(n, s, 10 * n) for n, s in enumerate(scores)]
    newest_first_among_standouts(items, 1.5, 0.3, 3, 20)
    assert (items[0].id != "i0") is moved


@pytest.mark.parametrize(("question", "past", "yes_no"), [
    ("Who is my manager now?", False, False),
    ("When is my grant application due?", False, False),
    ("我现在归谁管？", False, False),
    ("When did I move to Lisbon?", True, False),
    ("How often have I been bouldering?", True, False),
    # a present perfect asking where things stand now
    ("Roughly how far has my car been driven so far?", False, False),
    ("What has my rent gone up to by now?", False, False),
    ("How often have I been bouldering so far?", True, False),  # a count of the past
    ("What did I use to write code so far?", True, False),
    ("我一共去攀岩了几回？", True, False),
    ("我实际用过GraphQL吗？", True, True),
    ("Do I have practical experience with Rust?", False, True),
    ("我有没有Kafka的实战经验？", False, True),
    ("Is my rent still 1200?", False, True),
    # that one time, the last time: the past
    ("我那次跳槽去面试是几号？", True, False),
    ("我上次体检是什么时候？", True, False),
    ("我下次复查是哪天？", False, False),
    # 是...的 around a when-word: the time of a past event
    ("新店到底是哪天正式开张的？", True, False),
    ("我休完产假最后是哪天回公司的？", True, False),
    ("我们搬新家是哪天？", False, False),  # no mark of the past: it may be coming
    # a verb asked as "A not A" checks a claim
    ("我到底喝不喝酒？", False, True),
    ("我平时喝不喝奶茶？", False, True),
    ("我这人去过北京没有？", True, True),
    ("我好不容易考上的是哪所学校？", False, False),
])
def test_which_questions_are_about_now(question: str, past: bool, yes_no: bool) -> None:
    assert asks_past(question) is past
    assert asks_yes_no(question) is yes_no


@pytest.mark.parametrize(("question", "before"), [
    ("What phone did I have before this one?", True),
    ("我上一份工作在哪家公司？", True),
    ("上学期我带的是哪个班？", True),
    ("我前任叫什么？", True),
    ("我现在在哪家公司上班？", False),
    ("上个月我跑了多少公里？", False),  # a window, not what came before a change
])
def test_which_questions_ask_what_came_before_a_change(question: str, before: bool) -> None:
    from graphmem._recall_versions import asks_before

    assert asks_before(question) is before


def _say(service: MemoryService, user: str, day: int, text: str) -> str:
    return service.add_episode(EpisodeIn(user_id=user, occurred_at=T0 + timedelta(days=day),
                                         content=text, role="user")).episode.id


def _order(service: MemoryService, user: str, query: str, **kw: object) -> list[str]:
    got = service.recall(RecallIn(user_id=user, query=query, limit=10,  # type: ignore[arg-type]
                                  kinds=[MemoryKind.EPISODE], **kw))
    return [i.id for i in got.items]


def test_the_stage_runs_in_recall_for_questions_about_now_only(service: MemoryService,
                                                                user: str) -> None:
    old = _say(service, user, 0, "Every morning I drink a mug of hot chocolate with breakfast.")
    _say(service, user, 20, "Can you suggest a good book about gardening?")
    new = _say(service, user, 90, "Lately every morning I drink green tea.")
    later = T0 + timedelta(days=100)
    tuning = service._recaller.tuning
    # the hashing embedder scores the newer message ~0.45 of the older: a band of 0.4
    # takes both, the band off keeps the order by score
    service._recaller.tuning = replace(tuning, now_band=0.0, now_gap=0.0, facet_order=False)
    assert _order(service, user, "What do I drink with breakfast every morning?",
                  reference_time=later)[:2] == [old, new]
    service._recaller.tuning = replace(tuning, now_band=0.4, now_gap=0.0, facet_order=False)
    assert _order(service, user, "What do I drink with breakfast every morning?",
                  reference_time=later)[:2] == [new, old]
    for other in ("Do I drink hot chocolate with breakfast every morning?",  # yes/no
                  "What did I drink with breakfast every morning?",  # the past
                  "What do I drink with breakfast every morning in January 2024?"):  # window
        assert _order(service, user, other, reference_time=later)[0] == old, other


def test_standouts_run_in_recall_for_questions_about_now_only(service: MemoryService,
                                                              user: str) -> None:
    old = _say(service, user, 0, "My running watch is a Garmin Forerunner 245.")
    for day, text in ((10, "Can you suggest a good book about gardening?"),
                      (20, "How do I get rid of fruit flies in the kitchen?"),
                      (30, "What is a good stretching routine after work?")):
        _say(service, user, day, text)
    new = _say(service, user, 90, "I've been testing the Coros Pace 3 I got for my birthday "
                                  "as my watch on all my runs.")
    later = T0 + timedelta(days=100)
    question = "Which running watch do I use?"
    # the standouts alone: no band, no facet order, no newer versions, no lift
    tuning = replace(service._recaller.tuning, now_band=0.0, facet_order=False,
                     version_depth=0, facet_lift=0.0)
    service._recaller.tuning = replace(tuning, now_gap=0.0)
    off = _order(service, user, question, reference_time=later)
    service._recaller.tuning = tuning
    on = _order(service, user, question, reference_time=later)
    assert off[:2] == [old, new]  # by score, the Garmin leads
    assert on[:2] == [new, old]
    assert set(on) == set(off)
    past = _order(service, user, "Which running watch did I use in January 2024?",
                  reference_time=later)
    assert past.index(old) < past.index(new)


def test_the_words_of_a_personal_fact_widen_the_search() -> None:
    assert {"上级", "领导"} <= set(synonyms("我现在归谁管？"))
    assert "租金" in synonyms("我现在的房租是多少？")
    assert {"boss", "manager", "supervisor"} <= set(synonyms("To whom do I report now?"))
    assert {"coffee", "tea"} <= set(synonyms("What do I drink in the morning these days?"))
    # a question naming one value asks about it, not about every other one
    assert "coffee" not in synonyms("How often do I drink tea?")
    assert "游泳" not in synonyms("我说过几次去跑步？")
    assert synonyms("今天天气怎么样？") == []
    assert synonyms("Can you explain recursion?") == []
    assert [f.name for f in facets_of("Where do I live at the moment?")] == ["home"]
    assert [f.name for f in facets_of("What did I use to write code in May?")] == ["editor"]
    assert [f.name for f in facets_of("How much is in my rainy-day fund?")] == ["savings"]
    assert on_facet("Clover the bunny chewed through my laptop charger again.",
                    facets_of("What name does our pet rabbit go by now?"))
    assert facets_of("我现在在哪家公司上班？")[0].name == "employer"
    # a car and a phone carrier, said with no word of the question ("换了一辆比亚迪汉")
    assert [f.name for f in facets_of("我现在开什么车？")] == ["car"]
    assert on_facet("我把朗逸卖了，换了一辆比亚迪汉。", facets_of("我现在开什么车？"))
    assert "carrier" in [f.name for f in facets_of("我的手机号现在是哪家运营商？")]
    assert on_facet("我把号码携号转网到了移动。", facets_of("我的手机号是哪家运营商？"))
    assert not facets_of("我坐火车去上海。")  # a train is no car of one's own
    # other words for the same facts: how much I save, where I live, my house's cost
    assert [f.name for f in facets_of("我目前每月攒多少？")] == ["savings"]
    assert [f.name for f in facets_of("我目前住哪儿？")] == ["home"]
    assert on_facet("昨天终于搬进常营的新家了！", facets_of("我们家现在住哪一片？"))
    assert not on_facet("新家宽带装联通还是移动？", facets_of("我们家现在住哪一片？"))
    assert "rent" in [f.name for f in facets_of("我现在住的房子一个月要花多少钱？")]
    # a household machine named only by its brand is on the question's facet
    assert [f.name for f in facets_of("What brand is our washer?")] == ["washer"]
    assert on_facet("The Miele does a full load in under an hour.",
                    facets_of("What brand is our washer?"))
    assert not on_facet("The Miele does a full load in under an hour.",
                        facets_of("Where do I live now?"))
    assert on_facet("石头那台扫拖一体机确实省心，地板拖得锃亮。",
                    facets_of("我家用的是哪个牌子的扫地机？"))
    # the tool the accounts are kept in, named by its brand
    books = facets_of("What am I using to keep the business books these days?")
    assert [f.name for f in books] == ["bookkeeping"]
    assert on_facet("Canceled QuickBooks. Moved everything to Wave since it's free.", books)
    assert not facets_of("What books am I reading these days?")
    # what the user does for work, asked in other words than the employer
    for asked in ("What do I do for a living these days?", "What is my occupation?",
                  "我现在是做什么工作的？"):
        assert [f.name for f in facets_of(asked)] == ["role"], asked
    assert "nurse" in synonyms("What does Lisa do for a living?")
    assert [f.name for f in facets_of("Where do I work now?")] == ["employer"]
    # 交 is handing something in, not paying a fee, traffic or socialising
    assert [f.name for f in facets_of("基金材料现在最晚哪天要交？")] == ["deadline"]
    assert [f.name for f in facets_of("论文什么时候交？")] == ["deadline"]
    assert not facets_of("我报烘焙班一共交了多少学费？")
    assert not facets_of("那边交通方便吗？")
    assert on_facet("对了，记账我已经换成钱迹了，随手记直接卸载了",
                    facets_of("我现在用的记账软件是哪个？"))
    # other words for a phone
    assert [f.name for f in facets_of("What handset am I using right now?")] == ["device"]
    # a question names what the user has on its way; not what they might get
    phone = facets_of("What phone have I got now?")
    assert on_facet("How do I make Do Not Disturb on my Pixel follow my roster?", phone)
    assert not on_facet("Should I get a Pixel or an iPhone?", phone)
    assert not on_facet("How do I reset my phone?", phone)
    # working for someone, not something that works for a class or for the user
    job = facets_of("Where do I work now?")
    assert on_facet("I've been working for Acme since 2020.", job)
    assert on_facet("She works for Google.", job)
    assert not on_facet("Write me a summary of the poem that would work for S1s.", job)
    assert not on_facet("That works for Tom, he said.", job)


def test_a_message_on_a_facet_is_a_statement_naming_its_words_or_values() -> None:
    boss = facets_of("Who is my manager now?")
    assert on_facet("Long story. (Side note: Aisha moved teams and my new boss is Marco.)",
                    boss)
    assert on_facet("I report to Aisha Okafor, who wants a summary every Friday.", boss)
    assert not on_facet("Should I ask my manager for a raise?", boss)  # a question
    assert not on_facet("Can you explain this SQL query?", boss)
    # the facet named in passing, with no value: no version of it
    assert not on_facet("It feeds a dashboard that managers look at every week.", boss)
    # a weekday in the plural is a habit, not a value
    assert not on_facet("It feeds a dashboard that managers look at on Mondays.", boss)
    assert on_facet("My manager Priya meets us on Mondays.", boss)
    # 汇报 is reporting to someone, or presenting
    zh_boss = facets_of("我现在的上级是谁？")
    assert on_facet("另外，我向赵敏汇报，她要求每周五交一份书面总结。", zh_boss)
    assert on_facet("我现在汇报给孙浩。", zh_boss)
    assert not on_facet("下周我要汇报团队的季度成果。", zh_boss)
    assert [f.name for f in facets_of("我现在向谁汇报？")] == ["manager"]
    # a Chinese sentence naming the facet in passing, with no word of the user, no number
    # or Latin name and no change, states no version of it
    assert not on_facet("领导希望在计划会之前把这个弄完。", zh_boss)
    assert not on_facet("客户本人很友好，但他的老板不太好说话。", zh_boss)
    assert not on_facet("听众比较杂：工程师、两个产品经理，还有一位销售同事。", zh_boss)
    assert on_facet("张经理调走了，新来的领导是刘总。", zh_boss)
    # 我在X做Y: where the user works, with no word of the facet
    employer = facets_of("我在哪家单位任职？")
    assert on_facet("补充一下背景：我在北辰医疗做后端开发。", employer)
    assert on_facet("我在星河科技当产品经理。", employer)
    # ... not where the user does something: 我在厨房做饭 names no employer
    assert not on_facet("我在厨房做饭的时候想到的。", employer)
    assert not on_facet("我在客厅做瑜伽。", employer)
    drink = facets_of("What do I drink in the morning?")
    assert on_facet("I swapped espresso for black coffee in the mornings.", drink)
    assert not on_facet("I swapped espresso for black coffee in the mornings.", ())
    # a side note in brackets, then a question: the note is a sentence of its own
    assert on_facet("Please check my email. (Side note: My manager, Priya Raman, will read "
                    "it first.) How would you phrase the delay?", boss)
    # a capital after a bracket or a lead-in opens the sentence: it is no name
    assert not on_facet("(Side note: My manager wants this done before the meeting.)", boss)
    assert not on_facet("Some background in case it matters: My manager wants it soon.", boss)
    assert on_facet("Some background: I report to Aisha Okafor.", boss)
    # the facet's word with a doubled consonant before its ending
    assert on_facet("Our grant application has to be submitted by April 22.",
                    facets_of("When is my grant submission due?"))


def test_messages_on_the_asked_facet_come_newest_first(service: MemoryService,
                                                         user: str) -> None:
    filler = ("I'm trying to speed up a reporting script at work, and the profiler says "
              "most of the time goes into one function that loads orders row by row. ")
    old = _say(service, user, 0, filler + "Unrelated, but I report to Aisha Okafor now, "
               "who wants a written summary every Friday.")
    _say(service, user, 20, "Can you suggest a good book about gardening?")
    new = _say(service, user, 90, "Can you help me plan a trip? (Side note: Aisha moved to "
               "another team and my new boss is Marco Rossi.)")
    later = T0 + timedelta(days=100)
    question = "To whom do I report now?"
    tuning = replace(service._recaller.tuning, version_depth=0)  # facet order alone
    service._recaller.tuning = replace(tuning, now_band=0.0, now_gap=0.0, facet_order=False)
    off = _order(service, user, question, reference_time=later)
    assert off.index(old) < off.index(new)  # by score, the old message leads
    service._recaller.tuning = replace(tuning, now_band=0.0, now_gap=0.0)
    on = _order(service, user, question, reference_time=later)
    assert on.index(new) < on.index(old)
    assert set(on) == set(off)  # reordered, nothing added or dropped
    # the assistant repeating the old value later is no newer version of it
    echo = service.add_episode(EpisodeIn(
        user_id=user, occurred_at=T0 + timedelta(days=95), role="assistant",
        content="Since you report to Aisha Okafor, send her the summary on Friday.")).episode.id
    with_echo = _order(service, user, question, reference_time=later)
    assert with_echo.index(new) < with_echo.index(old)
    assert echo not in with_echo or with_echo.index(new) < with_echo.index(echo)
    # a question about a time or about the past is not reordered newest first
    for asked in ("Who did I report to in January 2024?", "Who did I report to?"):
        then = _order(service, user, asked, reference_time=later)
        assert then.index(old) < then.index(new), asked


def test_a_chinese_question_finds_the_message_in_other_words(service: MemoryService,
                                                             user: str) -> None:
    new = _say(service, user, 30, "赵敏调去别的组了，我的新上级是孙浩。")
    _say(service, user, 40, "帮我看看这段代码为什么跑不起来。")
    got = service.recall(RecallIn(user_id=user, query="我现在归谁管？", limit=5,
                                  kinds=[MemoryKind.EPISODE]))
    assert got.items and got.items[0].id == new
    service._recaller.tuning = replace(service._recaller.tuning, facet_words=False)
    off = service.recall(RecallIn(user_id=user, query="我现在归谁管？", limit=5,
                                  kinds=[MemoryKind.EPISODE]))
    assert not off.items or off.items[0].scores.fulltext in (None, 0.0)


def test_a_question_about_the_user_lifts_the_messages_stating_its_facet(
        service: MemoryService, user: str) -> None:
    """"To whom do I report now?": the message saying who the user's boss is, in passing
    inside a request about meals, goes up among questions that keep saying "report"."""
    for day in range(6):  # the question's words, but no statement of the facet's value
        _say(service, user, day, f"To whom do I report a failure of the nightly job, now "
             f"that run {day} failed? And whom do I report the slow report step to?")
    fact = _say(service, user, 20, "Can you help me plan meals for the week? Two adults, "
                "dinners under 40 minutes. Unrelated, but Priya moved to another team and I "
                "report to Hannah Kim now. We have a slow cooker and a small oven.")
    later = T0 + timedelta(days=30)
    # the lift alone: no other words of the facet searched, no newest-first order after it
    tuning = replace(service._recaller.tuning, facet_words=False, facet_order=False,
                     now_band=0.0, now_gap=0.0)
    service._recaller.tuning = replace(tuning, facet_lift=0.0)
    off = _order(service, user, "To whom do I report now?", reference_time=later)
    service._recaller.tuning = tuning
    on = _order(service, user, "To whom do I report now?", reference_time=later)
    assert on.index(fact) < off.index(fact)
    # a question about someone else names the facet too, but is not about the user's own
    third = _order(service, user, "Whom does Hannah Kim report to?", reference_time=later)
    service._recaller.tuning = replace(tuning, facet_lift=0.0)
    assert third == _order(service, user, "Whom does Hannah Kim report to?",
                           reference_time=later)


@pytest.mark.parametrize(("older", "newer", "question", "expected"), [
    ("My running shoes are Nike Pegasus.",
     "I replaced the Pegasus with a pair of Hoka Cliftons.",
     "Which running shoes do I use now?", True),
    ("Our book club meets at Laura's place every month.",
     "The book club now meets at the library cafe instead of Laura's.",
     "Where does my book club meet now?", True),
    ("我们组的站会在早上9点半。", "站会改到10点15了，照顾新来的同事。",
     "我们组的站会现在几点？", True),
    ("我阳台上养了3盆花。", "阳台上的花越来越多，现在有11盆了。", "我现在养了几盆花？", True),
    # numbers said in words, Chinese numerals; where a lower-case change went
    ("Our reading group has four members.", "The reading group grew to seven members.",
     "How many members does my reading group have now?", True),
    ("我家的鱼缸有三条鱼。", "鱼缸里的鱼现在有十二条了。", "我的鱼缸现在有几条鱼？", True),
    ("We're on the family Spotify plan.", "We downgraded Spotify to the duo plan.",
     "Which Spotify plan are we on?", True),
    ("我每周二下午去练书法。", "书法课改到了周五晚上。", "我现在什么时候练书法？", True),
    # a meeting moved to (挪到), told with no other word of change
    ("我们桌游群每周五晚上在骰子咖啡聚。", "骰子咖啡关门了，桌游局挪到了老周家，周日下午开。",
     "桌游聚会在哪儿办？", True),
    # a person named by surname and title is a value (a correction names the new one)
    ("我的牙一直在口腔医院王医生那里看。",
     "其实我之前说错了，帮我做根管的是李医生，王医生是我妈的主治。",
     "我的牙是哪位大夫在看？", True),
    ("我的牙一直在口腔医院王医生那里看。", "其实我之前说错了，王医生是上午的门诊。",
     "我的牙是哪位大夫在看？", False),
    ("My phone insurance is with Protect Co.", "I renewed the phone insurance with "
     "SafeCover instead.", "Who is my phone insurance with?", True),
    # a lone "one", 一 and 十分 ("very") are no numbers
    ("I have one bike, a road bike.", "I really want one more bike one day, honestly.",
     "How many bikes do I have now?", False),
    # a change with no new value and nowhere it went
    ("Lately it's matcha first thing in the morning for my routine.",
     "My morning routine has been a mess since the clocks changed.",
     "What's my usual morning beverage now?", False),
    # the same thing said again, behind another opener
    ("I spent the weekend tweaking my editor theme instead of coding.",
     "Unrelated, but I spent the weekend tweaking my editor theme instead of coding.",
     "Which editor do I use now?", False),
    # the change and the numbers are in different sentences: no new value of the fact
    ("My automatic savings went from 1350 to 1550 dollars a month.",
     "Also, my savings account's interest rate dropped again. Current columns: Date | "
     "Amount | Category. About 40 rows by the 20th.",
     "What is my monthly savings amount currently?", False),
    # two facts sharing only their openers
    ("By the way, I changed dentists, I go to Dr. Lindqvist now.",
     "By the way, I switched internet to a local fiber company, Sonic.",
     "Who is my dentist now?", False),
    # the change ("now") is said of another thing of the same long sentence than the one
    # the two share
    ("更正一下，我之前说烘焙课是周六上午，其实是周日下午两点到五点。",
     "生活上比以前好太多，现在住得近，每天坐地铁四站就到，早上还能在家吃个早饭，"
     "晚上基本八点前能走，周末也有精力去上烘焙课了。",
     "我的烘焙课是每周什么时候去上？", False),
    ("纠结了两个礼拜，最后报了烘焙工作室的系统课，每周六上午9点到12点。",
     "哦对了更正一下，我之前说烘焙课是周六上午，其实是周日下午两点到五点。",
     "我的烘焙课是每周什么时候去上？", True),
    # 个月 ("month", of 一个月 / 这个月) is no subject two messages share
    ("顺便吐槽，这个月到手还是6800，准备了三个星期的公开课一分钱没有。",
     "决定了，7月12号搬家！房子定在建设路那边，一个月1900，比现在贵400。",
     "我每个月工资到手大概多少？", False),
])
def test_a_later_message_restates_an_earlier_one_for_a_question_about_now(
        older: str, newer: str, question: str, expected: bool) -> None:
    from graphmem._version_rules import gist, restates, topic_terms

    assert restates(gist(newer), gist(older), topic_terms(question)) is expected


def test_newer_versions_come_first_without_a_stored_link(service: MemoryService,
                                                         user: str) -> None:
    old = _say(service, user, 0, "Some context: my running shoes are Nike Pegasus, "
               "and they still feel great on long runs. Can you suggest a 10K plan?")
    _say(service, user, 10, "What is a good stretching routine after a run?")
    new = _say(service, user, 60, "(Unrelated: I replaced the Pegasus with a pair of Hoka "
               "Cliftons.) How should I store winter clothes?")
    assert service.store.episode_versions(user, [old, new]) == []  # no link stored
    later = T0 + timedelta(days=70)
    question = "Which running shoes do I use now?"
    tuning = replace(service._recaller.tuning, facet_order=False, now_band=0.0, now_gap=0.0)
    service._recaller.tuning = replace(tuning, version_depth=0)
    off = _order(service, user, question, reference_time=later)
    service._recaller.tuning = tuning
    on = _order(service, user, question, reference_time=later)
    assert off.index(old) < off.index(new)
    assert on.index(new) < on.index(old)
    assert set(on) == set(off)
    # a question about the past keeps the order by score
    past = _order(service, user, "Which running shoes did I use in January 2024?",
                  reference_time=later)
    assert past.index(old) < past.index(new)


def test_these_days_asks_about_now(service: MemoryService, user: str) -> None:
    # "these days" / 最近 name the last weeks, which end now: the stages for questions about
    # now run inside that window
    old = _say(service, user, 75, "With breakfast I drink hot chocolate, my usual breakfast drink.")
    new = _say(service, user, 90, "I switched my usual drink to green tea.")
    later = T0 + timedelta(days=100)
    question = "What do I drink with breakfast these days?"
    tuning = replace(service._recaller.tuning, now_band=0.0, now_gap=0.0, facet_order=False)
    service._recaller.tuning = replace(tuning, version_depth=0)
    assert _order(service, user, question, reference_time=later)[:2] == [old, new]
    service._recaller.tuning = tuning
    assert _order(service, user, question, reference_time=later)[:2] == [new, old]


def test_a_relation_read_from_an_old_message_goes_below_its_new_version() -> None:
    from graphmem.model import to_ms
    from graphmem.recall.order import newer_versions_first, relation_sources

    old_msg = "Some context: my go-to coffee order is a flat white."
    new_msg = "I've switched my usual order to an oat cortado."
    rel = item(0, 9.0, 0, MemoryKind.RELATION)  # "user prefers flat white", read from e-old
    new = item(1, 8.0, 60)
    other = item(2, 7.0, 5)
    rows = {"i0": {"episodeIds": ["e-old"]}, "i1": {"content": new_msg},
            "i2": {"content": "Can you suggest a camping checklist?"}}
    stored = {"e-old": {"id": "e-old", "content": old_msg, "occurredAt": to_ms(T0)}}
    asked: list[list[str]] = []

    def episodes(ids: list[str]) -> list[dict[str, object]]:
        asked.append(ids)
        return [stored[i] for i in ids if i in stored]

    items = [rel, new, other]
    sources = relation_sources(items, rows, 10, episodes)
    assert asked == [["e-old"]] and sources == {"i0": stored["e-old"]}
    newer_versions_first(items, rows, "What is my usual coffee order these days?", 10, sources)
    assert [i.id for i in items] == ["i1", "i0", "i2"]
    assert [i.score for i in items] == [9.0, 8.0, 7.0]
    # a source already among the candidates is not read again; no episode, nothing to do
    assert relation_sources(items, {**rows, "e-old": stored["e-old"]}, 10, episodes) \
        == {"i0": stored["e-old"]} and asked == [["e-old"]]
    assert relation_sources([rel], rows, 10, episodes) == {} and asked == [["e-old"]]
    # without its source the relation keeps its place
    items = [item(0, 9.0, 0, MemoryKind.RELATION), item(1, 8.0, 60), item(2, 7.0, 5)]
    newer_versions_first(items, rows, "What is my usual coffee order these days?", 10, {})
    assert [i.id for i in items] == ["i0", "i1", "i2"]


@pytest.mark.parametrize(("question", "facet", "said"), [
    ("What racket sport do I play each week now?", "exercise", "Padel on Thursday was chaos."),
    ("Which foreign language am I studying at the moment?", "language",
     "My tutor says my Korean pronunciation is better."),
    ("我现在每周固定参加什么运动？", "exercise", "周四晚上的飞盘局又玩到天黑。"),
    ("我目前在学哪门外语？", "language", "德语的名词阴阳中性快把我逼疯了。"),
    ("我现在在团队里担任什么职务？", "role", "当上组长以后，一半时间都在开会。"),
])
def test_sports_languages_and_roles_are_facets(question: str, facet: str, said: str) -> None:
    facets = facets_of(question)
    assert facet in [f.name for f in facets]
    assert on_facet(said, facets)
    # the same said of someone close to the user is theirs, not the user's
    other = ("My sister says " + said) if said.isascii() else ("我妹妹说" + said)
    assert not on_facet(other, facets)


def test_relations_on_the_facet_are_lifted_and_ordered_at_their_messages_time(
        service: MemoryService, user: str) -> None:
    # the relation read from the old message (`user is learning Italian`) stays valid: the
    # new language is said in a message no relation is read from
    old = _say(service, user, 0, "Can you explain Python generators? By the way, I'm learning "
                                 "Italian on Duolingo and I'm on a 200-day streak.")
    for day in range(1, 6):
        _say(service, user, day, f"Could you suggest a language exchange app for day {day}? "
                                 "I want to practise speaking.")
    new = _say(service, user, 40, "Could you draft a polite email declining a meeting? By the "
                                  "way, my italki tutor says my Korean pronunciation is getting "
                                  "much better.")

    def order(**change: object) -> list[str]:
        service._recaller.tuning = replace(DEFAULT_TUNING, **change)  # type: ignore[arg-type]
        try:
            got = service.recall(RecallIn(user_id=user, query="Which language am I learning "
                                          "right now?", limit=10,
                                          reference_time=T0 + timedelta(days=41)))
        finally:
            service._recaller.tuning = DEFAULT_TUNING
        return [i.text if i.kind is MemoryKind.RELATION else i.id for i in got.items]

    italian = "user is learning Italian"
    default = order()
    assert default[0] == new  # the newest message on the facet, above the older relation
    assert default.index(italian) < default.index(old)
    # the lift raises the relation to the top; the facet order puts it below the new
    # message again, at the time of the message it was read from
    assert order(facet_order=False)[0] == italian
    assert order(facet_order=False, facet_relations=False)[0] != italian


def test_a_question_tells_the_facts_of_its_clauses_before_it_asks() -> None:
    rent = facets_of("我现在一个月房租多少钱？")
    # a request, then what it says of the user, then the question
    assert on_facet("顺便帮我算算，房租一个月4300，押二付一，这次我一次性先掏了多少？", rent)
    assert on_facet("My rent went up to 1450 last month, is that normal?",
                    facets_of("How much is my rent now?"))
    # a question that only asks about a value states none
    assert not on_facet("Is 1450 dollars a month a fair rent for a flat like ours?",
                        facets_of("How much is my rent now?"))
    assert not on_facet("房租一个月4300贵不贵？", rent)
    # every clause asking or requesting: nothing told
    assert not on_facet("Can you help me, my rent is 1450 now?", facets_of("What is my rent?"))
    # someone else helping is told; a request to the assistant is not
    partner = facets_of("我现在的对象叫什么名字？")
    assert on_facet("男朋友周屿说他周末可以开车帮我去宜家拉个书架，有没有适合猫的书架推荐？",
                    partner)
    assert not on_facet("帮我给男朋友周屿挑个礼物，有没有推荐？", partner)
    # a phone named by its brand and model is on the device facet
    phone = facets_of("我现在手上用的是哪款手机？")
    assert on_facet("我的小米13充电的时候背面烫得能煎蛋，用了快两年了，正常吗？", phone)
    assert on_facet("My Pixel 8 keeps dropping wifi, any idea why?",
                    facets_of("Which phone do I have now?"))


def test_a_chinese_question_also_looks_for_its_facets_english_words() -> None:
    # relations are stated in English whatever language they were said in
    assert {"boyfriend", "girlfriend", "partner"} <= set(synonyms("我现在的对象叫什么名字？"))
    assert "landlord" in synonyms("我现在一个月房租多少钱？")
    assert "对象" not in synonyms("Who is my partner now?")


def test_a_chinese_partner_said_in_passing_is_found_as_the_current_one(
        service: MemoryService, user: str) -> None:
    old = _say(service, user, 0,
               "男朋友李航下个月生日，他平时喜欢玩Switch和拼乐高。预算800以内，有什么推荐？")
    _say(service, user, 30, "跟李航分手了。其实也不是突然的，从过年开始就有点不对劲了。")
    _say(service, user, 40, "帮我看看这段代码为什么跑不起来。")
    new = _say(service, user, 90,
               "男朋友周屿说他周末可以开车帮我去宜家拉个书架，有没有适合猫的书架推荐？")
    got = service.recall(RecallIn(user_id=user, query="我现在的对象叫什么名字？", limit=10,
                                  reference_time=T0 + timedelta(days=100)))
    texts = [i.text for i in got.items]
    # the current partner comes first, as a relation or as the message
    first = next(i for i, t in enumerate(texts) if "周屿" in t)
    assert all(i > first for i, t in enumerate(texts) if "李航" in t and "分手" not in t), texts
    assert new in {i.id for i in got.items} | {s.id for i in got.items for s in i.sources}
    # the old partner, if shown, is below the new one (a breakup ended him)
    ids = [i.id for i in got.items]
    assert old not in ids or ids.index(old) > first


def test_a_when_question_is_lifted_by_a_facet_only_when_its_value_is_a_time() -> None:
    from graphmem._facets import lifted_by

    job = facets_of("When did I start at my new employer?")
    assert [f.name for f in job] == ["employer"]
    assert lifted_by(job, when=True) == ()
    assert lifted_by(job, when=False) == job
    due = facets_of("When is my grant submission due now?")
    assert [f.name for f in lifted_by(due, when=True)] == ["deadline"]
    assert [f.name for f in lifted_by(facets_of("我的基金申请什么时候截止？"), when=True)] == [
        "deadline"]


def test_how_far_the_user_goes_now_is_the_newest_distance(service: MemoryService,
                                                          user: str) -> None:
    assert [f.name for f in facets_of("How far am I swimming these mornings?")] == ["distance"]
    assert [f.name for f in facets_of("我现在一次跑几公里？")] == ["distance"]
    assert on_facet("Did 40 lengths this morning without stopping!",
                    facets_of("How far am I swimming these mornings?"))
    old = _say(service, user, 0, "I'm up to 32 lengths on my Monday and Wednesday swims now, "
                                 "should I add a third swim session?")
    _say(service, user, 20, "Can you suggest a good book about gardening?")
    new = _say(service, user, 90, "Did 40 lengths this morning without stopping!")
    later = T0 + timedelta(days=100)
    # "lengths" is one of the facet's words: the full text looks for it, and the facet
    # order puts the newest statement of a distance first
    on = _order(service, user, "How far am I swimming these mornings?", reference_time=later)
    assert on.index(new) < on.index(old)
