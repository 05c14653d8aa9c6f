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


@pytest.mark.parametrize("text", ["他跟老婆去旅游了。", "我明白了，谢谢。", "谁用过这个？"])
def test_nothing_from_another_s_wife_a_thanks_or_a_question(text: str) -> None:
    assert facts(text) == set()
