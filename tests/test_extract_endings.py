"""Endings said without the thing they end ("I retired", 我辞职了), tastes and tools given up
in other words ("stopped gaming" after "video games", "sold the Mazda"), Chinese sentences
that open with 我 and a topic (我手机用的是X), homes, cars, roles and lessons said in everyday
ways. Engine output first, then the changes through the service on both stores. None of
these sentences is in bench/data."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.extract import Message
from graphmem.extract.rules import RuleExtractor
from graphmem.inputs import EpisodeIn
from graphmem.model import CURRENT_OBJECT, normalize
from graphmem.service import MemoryService

from .api_support import make_service

AT = datetime(2025, 6, 15, 10, 0, tzinfo=UTC)
Key = tuple[str, str, str, bool]


def keys(text: str) -> set[Key]:
    message = Message(text, role="user", occurred_at=AT)
    return {(r.subject, r.predicate, r.object, r.stop)
            for r in RuleExtractor().extract([message]).relations}


def _u(predicate: str, obj: str, stop: bool = False) -> Key:
    return ("user", predicate, obj, stop)


FOUND: list[tuple[str, set[Key]]] = [
    ("I finally retired after thirty years.",
     {_u("works_at", CURRENT_OBJECT, True), _u("has_role", CURRENT_OBJECT, True)}),
    ("I quit my job last Friday.", {_u("works_at", CURRENT_OBJECT, True)}),
    ("I got laid off in the spring.", {_u("works_at", CURRENT_OBJECT, True)}),
    ("I've become vegetarian.", {_u("likes", "meat", True)}),
    ("I've lost interest in chess.", {_u("likes", "chess", True), _u("uses", "chess", True)}),
    ("I drive a Mazda CX-5.", {_u("uses", "Mazda CX-5")}),
    ("We own a small cottage in Whitby.", {_u("lives_in", "Whitby")}),
    ("My employer is Siemens.", {_u("works_at", "Siemens")}),
    ("I was promoted to senior editor in May.", {_u("has_role", "senior editor")}),
    ("I watch shows on Netflix.", {_u("uses", "Netflix")}),
    ("Pottery is my thing these days.", {_u("likes", "Pottery")}),
    ("Main takeaway from the launch: test the payment flow twice.",
     {_u("learned", "test the payment flow twice")}),
    ("我今年退休了。",
     {_u("works_at", CURRENT_OBJECT, True), _u("has_role", CURRENT_OBJECT, True)}),
    ("我上个月辞职了。", {_u("works_at", CURRENT_OBJECT, True)}),
    ("我平板用的是vivo。", {_u("uses", "vivo")}),
    ("我听歌一直用QQ音乐。", {_u("uses", "QQ音乐")}),
    ("大学毕业后我留在了青岛。", {_u("lives_in", "青岛")}),
    ("我在厦门租了一套房子。", {_u("lives_in", "厦门")}),
    ("我现在不在工厂了，转行做了摄影师。",
     {_u("works_at", "工厂", True), _u("has_role", "摄影师")}),
    ("我开的是一辆本田思域。", {_u("uses", "本田思域")}),
    ("火锅是我的心头好。", {_u("likes", "火锅")}),
    ("恐怖片我向来不感冒。", {_u("dislikes", "恐怖片")}),
    ("这次面试让我明白了一个道理：准备比天赋重要。", {_u("learned", "准备比天赋重要")}),
    # said in other everyday ways
    ("I've been a radiographer at Leeds General for a decade.",
     {_u("has_role", "radiographer"), _u("works_at", "Leeds General")}),
    ("We live in Galway, near the harbour.", {_u("lives_in", "Galway")}),
    ("Home for us is Bergen now.", {_u("lives_in", "Bergen")}),
    ("Kiwi gives me a rash every time.", {_u("allergic_to", "Kiwi")}),
    ("My daughter Ada starts school in September.", {_u("has_daughter", "Ada")}),
    ("Our old lurcher, Biscuit, hates the rain.", {_u("has_pet", "Biscuit")}),
    ("Nothing beats a cup of mint tea after dinner.", {_u("likes", "mint tea")}),
    ("Opera is my least favourite kind of night out.", {_u("dislikes", "Opera")}),
    ("Last week I started at the British Library.", {_u("works_at", "British Library")}),
    ("我弟弟李强在深圳读书。", {_u("has_brother", "李强")}),
    ("我们上个月搬到了青岛。", {_u("lives_in", "青岛")}),
    ("我对黑胶唱片情有独钟。", {_u("likes", "黑胶唱片")}),
    ("周末最开心的事就是钓鱼。", {_u("likes", "钓鱼")}),
    ("读书笔记我都记在语雀里。", {_u("uses", "语雀")}),
    ("我升职做了部门主管。", {_u("has_role", "部门主管")}),
    ("去年我转行做了程序员。",
     {_u("works_at", CURRENT_OBJECT, True), _u("has_role", "程序员")}),
    ("我算是明白了：健康比什么都重要。", {_u("learned", "健康比什么都重要")}),
    ("顺便说一下我最近换工作了：现在在星河软件。", {_u("works_at", "星河软件")}),
    ("现在我所有笔记都在Obsidian里写。", {_u("uses", "Obsidian")}),
    # a time after the thing given up is not part of it; "N weeks off X"; "a X person now"
    ("Gave up climbing after the shoulder injury.", {_u("likes", "climbing", True)}),
    ("Two months off sugar now.", {_u("likes", "sugar", True)}),
    ("I'm fully a dog person these days.", {_u("likes", "dog")}),
    # 这边 after a workplace, a time word before an adoption, a promotion, 连…都
    ("我在腾讯这边干了三年了。", {_u("works_at", "腾讯")}),
    ("前两天收养了一只猫叫芝麻。", {_u("has_pet", "芝麻")}),
    ("我升主任了！", {_u("has_role", "主任")}),
    ("现在连咖啡味都受不了。", {_u("dislikes", "咖啡味")}),
    ("我用的是华为P50。", {_u("uses", "华为P50")}),  # a phone, by its model
    ("回老家南昌定居快一年了。", {_u("lives_in", "南昌")}),  # the town before 定居
    ("我和女朋友小婷下个月去厦门。", {_u("has_girlfriend", "小婷")}),  # a pet name after kin
    ("Living in Phoenix in July should be illegal.", {_u("lives_in", "Phoenix")}),
    ("Lately I run my own little cafe by the harbour.", {_u("has_role", "cafe owner")}),
    ("Just got made shift supervisor at the depot.", {_u("has_role", "shift supervisor")}),
    ("跑步的话我还是偏爱越野跑。", {_u("likes", "越野跑")}),  # a topic, not a condition
    # an allergy told by what it does, after "X and I do not get along"; else a dislike
    ("Peanuts and I do not get along, one bite and my throat swells.",
     {_u("allergic_to", "peanuts")}),
    ("Spicy food and I just don't get along.", {_u("dislikes", "spicy food")}),
    ("一到秋天就鼻子痒，尘螨过敏真的太难受了。", {_u("allergic_to", "尘螨")}),  # 我 left out
    ("下个月正式去比亚迪报到。", {_u("works_at", "比亚迪")}),
    ("追剧一般在爱奇艺，听播客就开小宇宙。", {_u("uses", "爱奇艺"), _u("uses", "小宇宙")}),
    # what nothing beats, without its serving and its occasion
    ("Honestly nothing beats a lazy Saturday with a big mug of chai.", {_u("likes", "chai")}),
    ("nothing beats an ice-cold lemonade after a long hike", {_u("likes", "lemonade")}),
    # an employer named after "for", or after "a firm called"
    ("I'm a wind technician for Ørsted.",
     {_u("has_role", "wind technician"), _u("works_at", "Ørsted")}),
    ("I'm an accountant at a tiny family firm called Reed & Lowe.",
     {_u("has_role", "accountant"), _u("works_at", "Reed & Lowe")}),
    ("我对跑步是一点兴趣都没有。", {_u("dislikes", "跑步")}),  # not 跑步是
    ("My job is engineering manager these days.", {_u("has_role", "engineering manager")}),
    # where one does it is not what one likes; a product after its host or its maker
    ("我最喜欢在家看纪录片。", {_u("likes", "纪录片")}),
    ("我更喜欢去球馆打羽毛球。", {_u("likes", "羽毛球")}),
    ("剪视频我一般用iPad上的LumaFusion。", {_u("uses", "LumaFusion"), _u("uses", "iPad")}),
    ("写文档我用的是Microsoft的Word。", {_u("uses", "Word")}),
    # a device said as "my laptop's a X", "my daily driver is a X running Y"
    ("My laptop's a Framework 16 these days.", {_u("uses", "Framework 16")}),
    ("My daily driver is a ThinkPad running Debian.",
     {_u("uses", "ThinkPad"), _u("uses", "Debian")}),
    ("We've had our parrot Kiwi for ten years.", {_u("has_pet", "Kiwi")}),  # not "had our parrot"
    ("I draft in Scrivener and the whole manuscript backs up to Dropbox.",
     {_u("uses", "Scrivener"), _u("uses", "Dropbox")}),
    # an app given up, with how it was done between the app and the verb
    ("后来嫌广告多，随手记直接卸载了", {_u("uses", "随手记", stop=True)}),
    ("抖音我干脆删了", {_u("uses", "抖音", stop=True)}),
]


@pytest.mark.parametrize(("text", "expected"), FOUND)
def test_sentence(text: str, expected: set[Key]) -> None:
    assert keys(text) == expected


NOTHING = [
    "Should I quit my job?",
    "I might quit my job.",
    "I drive to Leeds every Monday.",
    "我朋友用的是OPPO。",
    "我建议用Notion。",
    "我开着车去上班。",
    "我换了一辆新车。",
    "我把房子卖了。",
    "当时我很忙。",
    "We lost the match on Saturday.",
    "I lost my keys again.",
    "They live in Leeds.",
    "我们项目搬到了GitHub。",
    "我们搬到了新办公室。",
    "甜食他一向不感冒。",
    "比起咖啡，他更喜欢茶。",
    "我在家里写作业。",
    "我换了工作以后很忙。",
    "另外，我的菜谱应用现在所有数据都放在SQLite里。",  # 用 of 应用 is no verb
    "这个信用卡的费用太高了。",
    "有空的话我想学日语。",  # a condition, and a wish
    "I run my own race.", "She runs her own bakery.",
    "Jake and I don't get along.", "My boss and I don't get along.",  # people
    "他下周去腾讯报到。",
    "My job is basically fixing printers all day.",  # what the job does, not a role
]


@pytest.mark.parametrize("text", NOTHING)
def test_must_yield_nothing(text: str) -> None:
    assert keys(text) == set()


# A relative's retirement, car or wedding is the relative's: the speaker only has them.
RELATIVE_ONLY: list[tuple[str, set[Key]]] = [
    ("My mum retired last year.", {_u("has_mother", "mother")}),
    ("My brother drives a Tesla.", {_u("has_brother", "brother")}),
    ("我爸爸退休了。", {_u("has_father", "爸爸")}),
    ("我弟弟今年结婚。", {_u("has_brother", "弟弟")}),
    ("我女儿最开心的事就是去公园。", {_u("has_daughter", "女儿")}),
    ("我妈说榴莲我不喜欢。", {_u("has_mother", "妈妈")}),  # the mother's words, no change
]


@pytest.mark.parametrize(("text", "expected"), RELATIVE_ONLY)
def test_a_relative_s_news_is_not_the_speaker_s(text: str, expected: set[Key]) -> None:
    assert keys(text) == expected


@pytest.mark.parametrize("text", ["我想辞职。", "我打算明年辞职。", "我没退休。",
                                  "If I retired I would travel."])
def test_a_wish_or_a_denial_ends_nothing(text: str) -> None:
    assert not {k for k in keys(text) if k[3]}  # a plan maybe, never a stop


def _tell(service: MemoryService, user: str, texts: list[str]) -> None:
    for n, text in enumerate(texts):
        service.add_episode(EpisodeIn(user_id=user, content=text, role="user",
                                      occurred_at=datetime(2025, 1 + 5 * n, 10, tzinfo=UTC)))


def _now(service: MemoryService, user: str) -> set[tuple[str, str]]:
    return {(r.predicate, r.object) for r in service.relations(user)}


def _ever(service: MemoryService, user: str) -> set[tuple[str, str]]:
    return {(r.predicate, r.object) for r in service.relations(user, include_history=True)}


CHANGES: list[tuple[list[str], set[tuple[str, str]], set[tuple[str, str]]]] = [
    # (messages, current at the end, ended by the end)
    (["I'm a nurse at St. Mary's Hospital.", "I retired in March."],
     set(), {("works_at", "St. Mary's Hospital"), ("has_role", "nurse")}),
    (["I play video games most evenings.", "I've stopped gaming."],
     set(), {("likes", "video games")}),
    (["I drive a Mazda CX-5.", "I sold the Mazda last week."],
     set(), {("uses", "Mazda CX-5")}),
    (["I eat meat most days.", "I went vegetarian this spring."],
     set(), {("likes", "meat")}),
    (["我在一家医院当护士。", "我已经不在医院了，转行做了产品经理。"],
     {("has_role", "产品经理")}, {("works_at", "医院"), ("has_role", "护士")}),
    (["我一直用腾讯视频追剧。", "后来改用爱奇艺了。"],
     {("uses", "爱奇艺"), ("prefers", "爱奇艺")}, {("uses", "腾讯视频")}),
    (["我在一家律所当律师。", "我去年辞职了。"],
     {("has_role", "律师")}, {("works_at", "律所")}),
    (["Our cat Pickle sleeps on my keyboard.", "We lost Pickle last winter."],
     set(), {("has_pet", "Pickle")}),
    (["我女朋友刘佳在杭州工作。", "我和刘佳分手了。"], set(), {("has_girlfriend", "刘佳")}),
    (["我住在无锡。", "我们已经搬到常州了。"], {("lives_in", "常州")}, {("lives_in", "无锡")}),
    # things held one at a time, named in passing (test_extract_owned)
    (["I drive a red 2016 Nissan Micra.",
      "Charging the Hyundai Ioniq 5 overnight costs next to nothing."],
     {("uses", "Hyundai Ioniq 5")}, {("uses", "Nissan Micra")}),
    (["We get a Gousto box every Friday.", "This week's Green Chef box was all vegan."],
     {("uses", "Green Chef")}, {("uses", "Gousto")}),
    (["I drive a Honda Jazz.", "I traded in the Honda last month."],
     set(), {("uses", "Honda Jazz")}),
    (["We rent a small flat in Coventry.", "The radiators in our Nottingham flat are ancient."],
     {("lives_in", "Nottingham")}, {("lives_in", "Coventry")}),
    # a tool taken up beside the others replaces none of them
    (["I use Vim for everything.", "I also use Zed now for pairing sessions."],
     {("uses", "Vim"), ("uses", "Zed")}, set()),
    # a kind given up ends each liked thing of that kind, and nothing else
    (["I love bacon sandwiches and tennis.", "I went vegetarian in the spring."],
     {("likes", "tennis")}, {("likes", "bacon sandwiches")}),
    (["我超爱吃红烧肉。", "我吃素三个月了。"], set(), {("likes", "红烧肉")}),
    (["Brisket is my favourite food ever.", "I went vegan in March."], set(),
     {("prefers", "Brisket")}),
    # a phone is held one at a time: a new model replaces the old
    (["我用的是华为P50。", "换了个小米14，拍照好多了。"],
     {("uses", "小米14")}, {("uses", "华为P50")}),
    (["I'm such a coffee person.", "Three weeks off coffee now, I'm fully a tea person."],
     {("prefers", "tea")}, {("prefers", "coffee")}),
]


@pytest.mark.parametrize(("texts", "now", "gone"), CHANGES)
def test_change_through_the_service(store: Any, user: str, texts: list[str],
                                    now: set[tuple[str, str]],
                                    gone: set[tuple[str, str]]) -> None:
    service = make_service(store)
    _tell(service, user, texts[:1])
    assert gone <= _now(service, user)  # the first message was understood
    _tell(service, user, texts)
    current = _now(service, user)
    assert now <= current and not gone & current
    assert gone <= _ever(service, user)  # kept as history


def test_an_ending_with_nothing_current_stores_nothing(store: Any, user: str) -> None:
    # "I quit my job" with no employer known: no relation, and no thing named "(current)"
    service = make_service(store)
    result = service.add_episode(EpisodeIn(user_id=user, content="I quit my job today.",
                                           role="user", occurred_at=AT))
    assert result.relations == []
    assert _ever(service, user) == set()
    assert service.store.entities_by_norm(user, [normalize(CURRENT_OBJECT)]) == []


def test_an_ending_ends_only_its_own_users_job(store: Any, user: str) -> None:
    service = make_service(store)
    other = f"{user}-other"
    service.add_episode(EpisodeIn(user_id=other, content="I work at Lidl.", role="user",
                                  occurred_at=AT))
    service.add_episode(EpisodeIn(user_id=user, content="I work at Aldi.", role="user",
                                  occurred_at=AT))
    service.add_episode(EpisodeIn(user_id=user, content="I retired yesterday.", role="user",
                                  occurred_at=datetime(2025, 9, 1, tzinfo=UTC)))
    assert ("works_at", "Aldi") not in _now(service, user)
    assert ("works_at", "Lidl") in _now(service, other)


def test_an_ending_imported_late_ends_the_job_held_when_it_was_said(store: Any,
                                                                    user: str) -> None:
    # 2020 Acme, 2024 Globex; "I quit my job" said in mid 2023 arrives last: it ends Acme
    # (the job then), and Globex, begun after it, stays current
    service = make_service(store)
    for text, at in (("I work at Acme.", datetime(2020, 1, 10, tzinfo=UTC)),
                     ("I work at Globex.", datetime(2024, 2, 1, tzinfo=UTC)),
                     ("I quit my job.", datetime(2023, 6, 1, tzinfo=UTC))):
        service.add_episode(EpisodeIn(user_id=user, content=text, role="user",
                                      occurred_at=at))
    assert ("works_at", "Globex") in _now(service, user)
    acme = [r for r in service.relations(user, include_history=True) if r.object == "Acme"]
    assert acme and all(r.valid_until is not None
                        and r.valid_until <= datetime(2023, 6, 1, tzinfo=UTC) for r in acme)


def test_a_move_told_later_but_dated_earlier_is_current_in_chinese(store: Any,
                                                                   user: str) -> None:
    service = make_service(store)
    service.add_episode(EpisodeIn(user_id=user, content="我住在苏州。", role="user",
                                  occurred_at=datetime(2025, 3, 1, tzinfo=UTC)))
    service.add_episode(EpisodeIn(user_id=user, content="去年我搬到了杭州。", role="user",
                                  occurred_at=datetime(2025, 9, 1, tzinfo=UTC)))
    assert ("lives_in", "杭州") in _now(service, user)
    assert ("lives_in", "苏州") not in _now(service, user)
    assert ("lives_in", "苏州") in _ever(service, user)
