"""Tastes said as idioms (``graphmem.extract._idioms``) and the Chinese personal facts said
without their usual frame: the rule engine reads them, and reads nothing into what is said
of someone else."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.extract import Message
from graphmem.extract.rules import RuleExtractor

AT = datetime(2025, 6, 15, 10, 0, tzinfo=UTC)
Key = tuple[str, str, bool]


def facts(text: str) -> set[Key]:
    out = RuleExtractor().extract([Message(text, role="user", occurred_at=AT)])
    return {(r.predicate, r.object, r.stop) for r in out.relations if r.subject == "user"}


@pytest.mark.parametrize(("text", "expected"), [
    ("Late-70s jazz fusion is my jam.", ("likes", "late-70s jazz fusion")),
    ("Open-plan offices drive me up the wall.", ("dislikes", "open-plan offices")),
    ("Musicals just aren't my thing.", ("dislikes", "musicals")),
    ("I got hooked on bouldering last spring.", ("likes", "bouldering")),
    ("I'm a sucker for cheesy rom-coms.", ("likes", "cheesy rom-coms")),
    ("Reality TV is a hard pass for me.", ("dislikes", "reality TV")),
    ("I have zero patience for long meetings.", ("dislikes", "long meetings")),
    ("I could eat tacos every day.", ("likes", "tacos")),
    ("香菜这玩意儿我是真接受不了，谁往我碗里放我跟谁急", ("dislikes", "香菜")),
    ("KTV我是能躲就躲，太吵了", ("dislikes", "KTV")),
    ("早高峰挤地铁真的要了我的命", ("dislikes", "早高峰挤地铁")),
    ("说真的，螺蛳粉那个味儿我一闻就上头", ("likes", "螺蛳粉")),
    ("周末最大的快乐就是窝在家里看书，谁约我出门都不好使", ("likes", "窝在家里看书")),
])
def test_a_taste_said_as_an_idiom(text: str, expected: tuple[str, str]) -> None:
    assert facts(text) == {(*expected, False)}


@pytest.mark.parametrize("text", [
    "It drives me crazy.", "My boss drives me up the wall.", "This week is the worst.",
    "Is sushi the best thing ever?", "He is a sucker for cheesy rom-coms.",
    "他受不了香菜。", "我一喝酒就上头。", "我奶奶每天早上还雷打不动去公园打太极。",
])
def test_no_taste_in_a_thing_that_is_no_thing_or_someone_else_s(text: str) -> None:
    assert {f for f in facts(text) if f[0] in ("likes", "dislikes")} == set()


@pytest.mark.parametrize(("text", "expected"), [
    ("养了一只柯尔鸭，每天早上五点准时嘎嘎把我叫醒", {("has_pet", "柯尔鸭", False)}),
    ("对了我还养了两只鹦鹉，一只叫豆豆一只叫球球",
     {("has_pet", "豆豆", False), ("has_pet", "球球", False)}),
    ("我姐王雪下个月结婚，我要当伴娘", {("has_sister", "王雪", False)}),
    ("儿子刚上一年级，每天陪他写作业", {("has_son", "儿子", False)}),
    ("过年得跟老公回他东北老家", {("has_husband", "老公", False)}),
    ("我和老公结婚五年了，他叫刘洋。", {("has_husband", "刘洋", False)}),
    ("我对芒果过敏，芒果班戟什么的只能看着流口水", {("allergic_to", "芒果", False)}),
    ("吃一堑长一智，以后签合同前一定要逐条看清楚",
     {("learned", "以后签合同前一定要逐条看清楚", False)}),
    ("下个月我要把客厅改成工作室", {("plans_to", "把客厅改成工作室", False)}),
])
def test_chinese_personal_facts_without_their_usual_frame(text: str, expected: set[Key]) -> None:
    assert facts(text) == expected


@pytest.mark.parametrize(("text", "pet"), [
    ("店后门养了条土狗，叫旺财，黄毛的，三岁了。", None),
    ("店里养了两只猫，一只叫大黄。", None),
    ("我养的猫叫花花。", None),
    ("去年收养了一条小狗，叫它豆包。", "豆包"),
])
def test_the_name_after_an_animal_kept_is_the_animal_s_not_the_speaker_s(
        text: str, pet: str | None) -> None:
    found = facts(text)
    assert not any(p == "name_is" for p, _, _ in found)
    assert pet is None or ("has_pet", pet, False) in found


@pytest.mark.parametrize("text", [
    "我叫了个外卖", "我叫醒了他", "刚才我叫了辆滴滴", "我叫车去机场",  # 叫: to call, to order
    "Hello, I'm Sarah's mom and I need help.", "Hi, I am Leo's coach.",
])
def test_a_call_or_someone_else_s_name_is_no_name_of_the_speaker(text: str) -> None:
    assert not any(p == "name_is" for p, _, _ in facts(text))


@pytest.mark.parametrize(("text", "name"), [
    ("我叫王磊，在杭州开饭馆。", "王磊"),
    ("我家狗狗很乖，我叫王磊。", "王磊"),  # 我 right before the 叫: the speaker's own name
    ("我叫欧阳娜娜", "欧阳娜娜"),
    ("my name's Tom btw", "Tom"),
    ("Hi I am Priya, a nurse in Leeds.", "Priya"),
])
def test_the_speaker_s_own_name_is_still_read(text: str, name: str) -> None:
    assert ("name_is", name, False) in facts(text)


@pytest.mark.parametrize("text", ["他跟老婆去旅游了。", "我明白了，谢谢。", "谁用过这个？"])
def test_nothing_from_another_s_wife_a_thanks_or_a_question(text: str) -> None:
    assert facts(text) == set()


@pytest.mark.parametrize(("text", "expected"), [
    ("Biscuit, my corgi, has decided the vacuum is his enemy.", {("has_pet", "Biscuit", False)}),
    ("Our rescue greyhound sleeps about 20 hours a day.", {("has_pet", "greyhound", False)}),
    ("Honestly my cat dander allergy is no joke.", {("allergic_to", "cat dander", False)}),
    ("Started my new gig as a data engineer at Klarna on Monday.",
     {("has_role", "data engineer", False), ("works_at", "Klarna", False)}),
    ("My first shift as a flight attendant with Delta is tomorrow!",
     {("has_role", "flight attendant", False), ("works_at", "Delta", False)}),
    ("I'm running the Lisbon half marathon next March.",
     {("plans_to", "run the Lisbon half marathon", False)}),
    ("Next summer we're finally doing the Hokkaido trip.",
     {("plans_to", "do the Hokkaido trip", False)}),
    ("Cancelled Spotify last month, I'm all in on Tidal now.",
     {("prefers", "Spotify", True), ("uses", "Spotify", True), ("uses", "Tidal", False)}),
    ("Used to love running, so I've fallen for swimming instead.",
     {("likes", "running", True), ("likes", "swimming", False)}),
    ("Now that I've settled into Montreal I need a coat.", {("lives_in", "Montreal", False)}),
    ("We buried Nugget in the garden yesterday.", {("has_pet", "Nugget", True)}),
])
def test_english_facts_said_in_passing(text: str, expected: set[Key]) -> None:
    assert facts(text) == expected


@pytest.mark.parametrize("text", [
    "My dog died last week and I miss him.", "My friend's dog is named Rex.",
    "I'm working next Monday.", "I'm starting at Spotify in May.",
    "Her new job as a nurse is hard.",
    "If I got a job as a pilot at Delta I'd travel more.",
])
def test_nothing_said_in_passing_where_it_is_not_the_speaker_s_own(text: str) -> None:
    assert not {f for f in facts(text) if f[0] in ("has_pet", "plans_to", "has_role")
                and not f[2]}


@pytest.mark.parametrize(("text", "expected"), [
    ("奶茶我已经彻底戒了，还是美式顺口", {("prefers", "milk tea", True), ("likes", "美式", False)}),
    ("抖音被我卸了，睡眠质量变好", {("uses", "抖音", True)}),
    ("每天晚上刷抖音刷到一两点", {("uses", "抖音", False)}),
    ("我家狗狗旺财十二岁了", {("has_pet", "旺财", False)}),
    ("旺财上周走了", {("has_pet", "旺财", True)}),
    ("我们比亚迪的食堂是真不错", {("works_at", "比亚迪", False)}),
    ("跳槽到拼多多之后工资涨了不少", {("works_at", "拼多多", False)}),
    ("搬到杭州快一个月了", {("lives_in", "杭州", False)}),
    ("我在链家做房产中介", {("works_at", "链家", False), ("has_role", "房产中介", False)}),
])
def test_chinese_changes_said_in_passing(text: str, expected: set[Key]) -> None:
    assert facts(text) == expected


@pytest.mark.parametrize("text", ["他把烟戒了。", "我们学校的食堂很难吃。", "我奶奶走了。"])
def test_no_change_said_of_someone_else_or_a_school(text: str) -> None:
    assert not {f for f in facts(text) if f[0] in ("works_at", "has_pet", "likes", "uses")}


@pytest.mark.parametrize(("text", "expected"), [
    ("ugh, cilantro ruins every dish, it literally tastes like soap",
     {("dislikes", "cilantro", False)}),
    ("I've rewatched Spirited Away like six times this year", {("likes", "Spirited Away", False)}),
    ("My weekends basically revolve around bouldering at this point lol",
     {("likes", "bouldering", False)}),
    ("Been on a massive Stardew Valley kick lately", {("likes", "Stardew Valley", False)}),
    ("anything with sesame sends me to the ER", {("allergic_to", "sesame", False)}),
    ("birch pollen has me sneezing nonstop", {("allergic_to", "birch pollen", False)}),
    ("Grandpa turns 90 on Sunday", {("has_grandfather", "grandfather", False)}),
    ("Living in Lisbon has been great for my tan", {("lives_in", "Lisbon", False)}),
    ("Since the promotion to analytics manager I barely code",
     {("has_role", "analytics manager", False)}),
    ("so yeah the plan is to repaint the kitchen sage green once it warms up",
     {("plans_to", "repaint the kitchen sage green", False)}),
    ("话说我现在每天下班都得来一杯杨枝甘露，不喝浑身难受", {("likes", "杨枝甘露", False)}),
    ("《繁花》我已经二刷了", {("likes", "繁花", False)}),
    ("我一碰猫毛就打喷嚏流眼泪", {("allergic_to", "猫毛", False)}),
    ("家里那只柯基叫土豆，天天拆家", {("has_pet", "土豆", False)}),
    ("从美团跳到拼多多快一个月了", {("works_at", "美团", True), ("works_at", "拼多多", False)}),
    ("国庆准备自驾去川西", {("plans_to", "自驾去川西", False)}),
    ("其实我一直想开一家自己的咖啡店，正在一点点攒钱呢",
     {("plans_to", "开一家自己的咖啡店", False)}),
])
def test_second_round_said_in_passing(text: str, expected: set[Key]) -> None:
    assert facts(text) == expected


def test_a_chinese_sentence_without_its_speaker_is_the_speaker_s_but_less_surely() -> None:
    out = RuleExtractor().extract([Message("国庆准备自驾去川西", role="user", occurred_at=AT)])
    assert [r.confidence for r in out.relations] == [0.8]
    assert facts("他国庆准备自驾去川西") == set()  # someone else's plan


@pytest.mark.parametrize("text", ["你呢？", "那怎么办呢", "我吃东西会过敏。"])
def test_a_question_by_its_ne_and_no_allergy_to_things(text: str) -> None:
    assert facts(text) == set()


@pytest.mark.parametrize(("text", "expected"), [
    ("The winters here in Oslo are brutal.", {("lives_in", "Oslo", False)}),
    ("深圳这边的夏天真的太长了，来了半年还是不习惯", {("lives_in", "深圳", False)}),
    ("Orientation at Mayo Clinic was intense.", {("works_at", "Mayo Clinic", False)}),
    ("My first week at Canva has been a blur.", {("works_at", "Canva", False)}),
    ("I used to be all about horror but not now.", {("likes", "horror", True)}),
])
def test_where_one_is_and_what_one_left_said_in_passing(text: str, expected: set[Key]) -> None:
    assert facts(text) == expected


@pytest.mark.parametrize("text", ["I'm here in Paris for a conference.",
                                  "I'm here in Paris until Friday.",
                                  "Her orientation at Mayo was long."])
def test_no_home_or_job_from_a_visit_or_someone_else_s_start(text: str) -> None:
    assert facts(text) == set()


@pytest.mark.parametrize(("text", "expected"), [
    # a statement before a request is told; the request asks
    ("I'm allergic to shellfish so can you swap the shrimp for something else?",
     {("allergic_to", "shellfish", False)}),
    ("my sister Priya is getting married in June, what's a thoughtful gift?",
     {("has_sister", "Priya", False)}),
    ("I'm obsessed with true crime podcasts, give me some new ones to binge",
     {("likes", "true crime podcasts", False)}),
    ("my iPhone 12 battery is dead by 3pm, any settings I should tweak?",
     {("uses", "iPhone 12", False)}),
    ("我对芒果过敏，这个甜品配方能把芒果换成别的吗？", {("allergic_to", "芒果", False)}),
    ("上周刚入职美团做产品经理，怎么快速熟悉业务？",
     {("works_at", "美团", False), ("has_role", "产品经理", False)}),
    # changes said in everyday words
    ("deleted Notion off all my devices, it had turned into a procrastination machine.",
     {("prefers", "Notion", True), ("uses", "Notion", True)}),
    ("I don't really read mysteries anymore, it's only sci-fi for me now.",
     {("likes", "mysteries", True), ("likes", "sci-fi", False)}),
    ("I've been really off anime lately.", {("likes", "anime", True)}),
    ("I'm a huge running nerd!", {("likes", "running", False)}),
    ("as a junior designer I never get to present to clients.",
     {("has_role", "junior designer", False)}),
    ("back in Chicago for good now.", {("lives_in", "Chicago", False)}),
    ("ugh, another Monday at Deloitte.", {("works_at", "Deloitte", False)}),
    ("我是咖啡重度爱好者", {("prefers", "coffee", False)}),
    ("周一又要去腾讯加班了", {("works_at", "腾讯", False)}),
    ("以前那么爱吃香菜，现在闻到就想吐", {("likes", "香菜", True), ("dislikes", "香菜", False)}),
    ("我对围棋已经没兴趣了。", {("likes", "围棋", True)}),
    ("现在韩剧基本不看了，只追美剧。",
     {("likes", "韩剧", True), ("uses", "韩剧", True), ("likes", "美剧", False)}),
    ("在上海租房好贵啊", {("lives_in", "上海", False)}),
])
def test_third_round_statements_before_requests_and_changes(text: str,
                                                            expected: set[Key]) -> None:
    assert facts(text) == expected


@pytest.mark.parametrize("text", [
    "Is it worth getting a mesh wifi system?", "Say I quit my job, would that look bad?",
    "你觉得Python和Go哪个更适合新手？", "I like 2 sugars.", "我只吃了一碗饭。",
    "I've always been a huge fan of", "他对围棋已经没兴趣了。",
])
def test_no_statement_from_a_question_a_filler_like_or_someone_else(text: str) -> None:
    assert {f for f in facts(text) if f[0] != "has_pet"} == set()


def test_a_divorce_said_without_a_name_ends_the_one_partner_held(service: object,
                                                                  user: str) -> None:
    from datetime import timedelta

    from graphmem.inputs import EpisodeIn
    said = ["老婆生日快到了，送什么礼物比较好", "离婚手续上周办完了，一个人住还挺不习惯的"]
    for n, text in enumerate(said):
        service.add_episode(EpisodeIn(  # type: ignore[attr-defined]
            user_id=user, content=text, role="user", source_ref=f"m{n}",
            occurred_at=AT + timedelta(days=30 * n)))
    current = {(r.predicate, r.object) for r in service.relations(user)}  # type: ignore[attr-defined]
    assert ("has_wife", "老婆") not in current


@pytest.mark.parametrize("text", [
    "Yep, Caroline. I'm off to go swimming with the kids.",   # leaving, no taste ended
    "I'm off work today.",
    "Joined a travel club and, like I said, working on studies.",  # a filler "like"
    'Just finished "A Dance with Dragons" and loved it.',      # a title, no product
    "I'm a huge fan.", "I'm a fan too!",                        # a fan of nothing named
    "Wow, Mel, family love and support is the best!",          # praise, not a taste
])
def test_chat_turns_that_read_like_facts_but_are_not(text: str) -> None:
    assert {f for f in facts(text) if f[0] in ("likes", "uses")} == set()
